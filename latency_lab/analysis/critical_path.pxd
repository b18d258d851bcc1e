# Cython declarations for the compiled build of latency_lab/analysis/critical_path.py (see latency_lab/engine/core.pxd):
# the walk reads every packet of the critical path, so its packet is typed.
cimport cython
from latency_lab.engine.core cimport Packet, Point, Quantities

cpdef str category_of(Packet pkt)

@cython.locals(p=Packet, prev=Packet, trips=cython.int, arriving=cython.bint, queued=cython.bint)
cpdef tuple walk(Packet final, Quantities q, Point stop=*, list steps=*)
