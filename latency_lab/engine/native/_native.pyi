# Types of the native engine's binding (_native.pyx), for mypy.
from typing import Any

PROTOCOLS: dict[str, int]

class Prepared:
    def __init__(self, p: Any, quic_profile: Any) -> None: ...

class Run:
    status: int
    steps: int
    incomplete_object: int
    pages: list[tuple[float, list[float], int, float, float]]
    objects: list[tuple[int, float, float]]
    events: list[tuple[Any, ...]]
    notes: list[tuple[int, int, int]]
    counts: dict[str, int]
    on_path: list[int]
    conn_legs: list[int]
    conn_segments: list[int]
    conn_syns: list[int]
    conn_syn_t: list[float]
    packets: list[tuple[Any, ...]]
    loss: tuple[int, list[int], list[int], list[tuple[Any, ...]], list[tuple[int, int, float, int]]]
    walk_steps: list[list[tuple[int, float, int, int]]]
    costed: tuple[tuple[float, float, float, float], float, float, int, list[int]]
    stall_counts: tuple[int, int, int, int] | None

def run(
    prepared: Prepared,
    protocol: str,
    allowance: int,
    packets: bool = False,
    loss: bool = False,
    cost_at: float = 0.0,
    summary: bool = False,
) -> Run: ...
def periods(
    p: float,
    rest: float,
    h: float,
    b: int,
    w_max: float,
    transient_periods: int,
    fine_window: float,
    bin_ratio: float,
    tail_mass: float,
    min_ssthresh: float,
) -> tuple[float, float, float, float, float]: ...
def loss_costing_constants() -> dict[str, float]: ...
