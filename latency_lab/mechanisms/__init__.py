"""Layer 2, the mechanisms: one pure closed form per sub-model, with units and the seed section cited.

:mod:`~latency_lab.mechanisms.link` (serialization and propagation), :mod:`~latency_lab.mechanisms.slow_start`,
:mod:`~latency_lab.mechanisms.delayed_ack`, :mod:`~latency_lab.mechanisms.nagle`, :mod:`~latency_lab.mechanisms.connection_setup`,
:mod:`~latency_lab.mechanisms.tls`, :mod:`~latency_lab.mechanisms.quic`, :mod:`~latency_lab.mechanisms.dns`,
:mod:`~latency_lab.mechanisms.host_cost` (a connection's host cost from a measured throughput),
:mod:`~latency_lab.mechanisms.loss` and :mod:`~latency_lab.mechanisms.loss_recovery` (the loss closed forms applied to a
schedule described in numbers). Functions of numbers only: no events, no packets, no sessions.
Imports only :mod:`latency_lab.scenario`.
"""
