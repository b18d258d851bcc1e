"""Layer 3, the engine: composes the mechanisms' closed forms packet by packet.

- :mod:`~latency_lab.engine.lin`: linear forms (:class:`~latency_lab.engine.lin.Lin`), so a traced run carries each time's formula.
- :mod:`~latency_lab.engine.core`: quantities, packets, points and the event loop over FIFO links.
- :mod:`~latency_lab.engine.tcp`: TCP endpoints and connections applying the mechanisms' rules.

Imports only :mod:`latency_lab.scenario` and :mod:`latency_lab.mechanisms`. Compiled by ``pip install -e .``
(:mod:`latency_lab._backend`), with C layouts in the ``.pxd`` files beside the modules.
"""
