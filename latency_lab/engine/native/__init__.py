"""The native engine: the float path of the schedule engine and the protocols in C++ (``engine.hpp``).

Built by ``pip install -e .`` (``setup.py``: Cython binds it, the machine's g++ compiles it). It is the Python
engine (:mod:`latency_lab.engine.core`, :mod:`latency_lab.engine.tcp`, :mod:`latency_lab.protocols`, :mod:`latency_lab.analysis.critical_path`)
written again statement for statement, so that it computes the same numbers in the same order;
``tests/latency_lab/engine/test_engine_backends.py`` proves it over every preset, the validation grid and thousands of
random scenarios. :mod:`latency_lab.analysis.native` runs it and turns its numbers into the output document.
"""
