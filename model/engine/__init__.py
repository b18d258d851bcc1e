"""Layer 3, the engine: composes the mechanisms' closed forms packet by packet.

- :mod:`~model.engine.lin`: linear forms (:class:`~model.engine.lin.Lin`), so a traced run carries each time's formula.
- :mod:`~model.engine.core`: quantities, packets, points and the event loop over FIFO links.
- :mod:`~model.engine.tcp`: TCP endpoints and connections applying the mechanisms' rules.

Imports only :mod:`model.scenario` and :mod:`model.mechanisms`. Compiled by ``pip install -e .``
(:mod:`model._backend`), with C layouts in the ``.pxd`` files beside the modules.
"""
