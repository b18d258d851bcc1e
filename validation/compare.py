"""Model against ns-3, protocol by protocol, for one scenario.

The model is run on the same scenario with ``packet_overhead_bytes`` set to what ns-3 puts on the
wire (:data:`validation.sim.PACKET_OVERHEAD_BYTES`, 42 bytes: IP 20 + TCP 20 + PPP 2) unless told
to keep the scenario's value; error is ``(model - ns3) / ns3``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from latency_lab import predict
from latency_lab.analysis.predict import simulate
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario
from validation.sim import PACKET_OVERHEAD_BYTES, Simulator, as_scenario, differences

#: Counts compared between the model and ns-3 for each run.
COUNT_KEYS = (
    "packets",
    "data_packets",
    "ack_packets",
    "control_packets",
    "bytes_on_wire",
    "connections",
    "delayed_ack_stalls",
    "nagle_stalls",
    "slow_start_rounds",
    "timer_acks",
)


def matched(scenario: Scenario | dict[str, Any], *, keep_overhead: bool = False) -> Scenario:
    """The scenario as both sides run it: the model with ns-3's per-packet overhead."""
    s = as_scenario(scenario)
    if keep_overhead or s.network.packet_overhead_bytes == PACKET_OVERHEAD_BYTES:
        return s
    doc = s.model_dump(mode="json")
    doc["network"]["packet_overhead_bytes"] = PACKET_OVERHEAD_BYTES
    return Scenario.model_validate(doc)


def engine_stall_counts(s: Scenario, protocol: str) -> dict[str, int]:
    """Every stall the engine recorded in the run (its raw idle periods, on the critical path or not), counted as
    :mod:`validation.analyze` counts ns-3's: a window stall is a slow-start round, and the delayed-ACK and Nagle
    stalls by kind. These replace the result document's counts, which count only the stalls on the critical path
    (issue 25). The Python reference engine's session (both engines are equal: the differential test)."""
    events = simulate(resolve(s), protocol).events
    return {
        "slow_start_rounds": sum(1 for e in events if e.get("window_stall")),
        "delayed_ack_stalls": sum(1 for e in events if e["kind"] == "delayed_ack_stall"),
        "nagle_stalls": sum(1 for e in events if e["kind"] == "nagle_stall"),
    }


def model_results(s: Scenario) -> dict[str, dict[str, Any]]:
    """The model's results by protocol, with packet kinds and stalls counted as the simulator counts them (every
    stall of the run, :func:`engine_stall_counts`, not only those on the critical path)."""
    out: dict[str, dict[str, Any]] = {}
    for r in predict(s, packets=True)["results"]:
        r["counts"].update(engine_stall_counts(s, r["protocol"]))
        kinds = Counter(pk["kind"] for pk in r["packets"])
        r["counts"]["data_packets"] = kinds["DATA"]
        r["counts"]["ack_packets"] = kinds["ACK"]
        r["counts"]["control_packets"] = kinds["SYN"] + kinds["SYNACK"] + kinds["FIN"] + kinds["RST"]
        r["counts"]["timer_acks"] = sum(1 for pk in r["packets"] if pk["ack_held_ms"] > 0)
        out[r["protocol"]] = cast(dict[str, Any], r)
    return out


def compare(
    scenario: Scenario | dict[str, Any],
    sim: Simulator,
    *,
    keep_overhead: bool = False,
    quickack: bool = True,
) -> dict[str, Any]:
    """``{"scenario": ..., "rows": [...]}``: per protocol, the model's and ns-3's numbers side by side."""
    given = as_scenario(scenario)
    s = matched(given, keep_overhead=keep_overhead)
    notes = differences(resolve(s))
    if s.network.packet_overhead_bytes != given.network.packet_overhead_bytes:
        notes.append(
            f"the model runs with packet_overhead_bytes {s.network.packet_overhead_bytes} (ns-3's IP+TCP+PPP headers), "
            f"not the scenario's {given.network.packet_overhead_bytes}"
        )
    elif s.network.packet_overhead_bytes != PACKET_OVERHEAD_BYTES:
        notes.append(
            f"the model keeps packet_overhead_bytes {s.network.packet_overhead_bytes}; "
            f"ns-3 always puts {PACKET_OVERHEAD_BYTES} bytes of headers on the wire"
        )
    if not quickack:
        notes.append("ns-3 runs without its immediate ACK of a connection's first data segment (--no-quickack)")
    model = model_results(s)
    rows = []
    for proto in s.protocols:
        m = model[proto]
        n = sim.run(s, proto, quickack=quickack)
        err = (m["page_load_ms"] - n["page_load_ms"]) / n["page_load_ms"] if n["page_load_ms"] > 0 else 0.0
        rows.append(
            {
                "protocol": proto,
                "model_ms": m["page_load_ms"],
                "ns3_ms": n["page_load_ms"],
                "error": err,
                "model": {k: m["counts"][k] for k in COUNT_KEYS},
                "ns3": {k: n["counts"][k] for k in COUNT_KEYS},
                "objects": [
                    {
                        "name": mo["name"],
                        "model_start_ms": mo["start_ms"],
                        "ns3_start_ms": no["start_ms"],
                        "model_end_ms": mo["end_ms"],
                        "ns3_end_ms": no["end_ms"],
                    }
                    for mo, no in zip(m["objects"], n["objects"], strict=True)
                ],
                "model_events": m["events"],
                "ns3_events": n["events"],
            }
        )
    return {"scenario": s.model_dump(mode="json"), "notes": notes, "rows": rows}


def table(result: dict[str, Any], *, objects: bool = False) -> str:
    """The comparison as a plain-text table (model / ns-3 in each count column)."""
    head = (
        f"{'protocol':<16}{'model ms':>11}{'ns-3 ms':>11}{'error':>8}  "
        f"{'packets':>9} {'data':>9} {'ack':>9} {'ctl':>7} {'bytes':>13} {'dack st.':>9} {'nagle st.':>9} "
        f"{'ss rounds':>9} {'timer ack':>9}"
    )
    lines = [head, "-" * len(head)]
    for r in result["rows"]:
        m, n = r["model"], r["ns3"]

        def pair(k: str, width: int, m: dict[str, Any] = m, n: dict[str, Any] = n) -> str:
            return f"{m[k]}/{n[k]}".rjust(width)

        lines.append(
            f"{r['protocol']:<16}{r['model_ms']:>11.2f}{r['ns3_ms']:>11.2f}{100 * r['error']:>+7.1f}%  "
            f"{pair('packets', 9)} {pair('data_packets', 9)} {pair('ack_packets', 9)} "
            f"{pair('control_packets', 7)} {pair('bytes_on_wire', 13)} {pair('delayed_ack_stalls', 9)} "
            f"{pair('nagle_stalls', 9)} {pair('slow_start_rounds', 9)} {pair('timer_acks', 9)}"
        )
        if objects:
            for o in r["objects"]:
                lines.append(
                    f"    {o['name']:<10} start {o['model_start_ms']:9.2f} / {o['ns3_start_ms']:9.2f}"
                    f"   end {o['model_end_ms']:9.2f} / {o['ns3_end_ms']:9.2f}"
                    f"   ({o['model_end_ms'] - o['ns3_end_ms']:+.2f} ms)"
                )
    lines.append("counts are latency_lab/ns-3; error = (model - ns-3) / ns-3")
    lines.extend(f"note: {n}" for n in result.get("notes", []))
    return "\n".join(lines)
