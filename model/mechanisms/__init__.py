"""Layer 2, the mechanisms: one pure closed form per sub-model, with units and the seed section cited.

:mod:`~model.mechanisms.link` (serialization and propagation), :mod:`~model.mechanisms.slow_start`,
:mod:`~model.mechanisms.delayed_ack`, :mod:`~model.mechanisms.nagle`, :mod:`~model.mechanisms.connection_setup`,
:mod:`~model.mechanisms.tls`, :mod:`~model.mechanisms.quic`, :mod:`~model.mechanisms.dns`,
:mod:`~model.mechanisms.host_cost` (a connection's host cost from a measured throughput),
:mod:`~model.mechanisms.loss` and :mod:`~model.mechanisms.loss_recovery` (the loss closed forms applied to a
schedule described in numbers). Functions of numbers only: no events, no packets, no sessions.
Imports only :mod:`model.scenario`.
"""
