"""The native engine's enumerations follow the Python lists they mirror (issue 29: "the event and category layouts
from one list").

The C++ engine returns numbers where the Python engine has names: a breakdown category, a packet's kind, what held
data back, a session event's kind, a cause of the loss costing, a protocol. Each C++ ``enum`` is written in the order
of one Python list (the source of truth) and the binding (``_native.pyx``) or :mod:`latency_lab.analysis.native` turns
the numbers back into names by that order. Nothing in the build checks the two orders agree: a category added to
:data:`~latency_lab.analysis.critical_path.CATEGORIES` but not to ``engine.hpp``'s ``Cat`` would shift every later
category's time into its neighbour's. This module reads the C++ texts and checks each enum, member by member, against
its list (the enums of the parameters are checked by :mod:`tests.latency_lab.engine.test_native_params`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from latency_lab.analysis import native
from latency_lab.analysis.critical_path import CATEGORIES
from latency_lab.mechanisms.loss_recovery import CAUSES
from latency_lab.protocols import SCHEDULES

NATIVE = Path(__file__).resolve().parents[3] / "latency_lab" / "engine" / "native"


def enum_members(file: str, enum: str) -> list[str]:
    """The members of ``enum <enum> [: type] { ... };`` in ``file``, in their order; each must take the previous
    value plus one from 0 (the order is the mapping)."""
    text = re.sub(r"//[^\n]*", "", (NATIVE / file).read_text())
    found = re.findall(rf"\benum {enum}\b(?:\s*:\s*\w+)?\s*\{{([^}}]*)\}}", text)
    assert len(found) == 1, f"{file}: {len(found)} declarations of enum {enum}"
    members = []
    for k, item in enumerate(x.strip() for x in found[0].split(",") if x.strip()):
        m = re.fullmatch(r"(?P<name>[A-Z][A-Z0-9_]*)(\s*=\s*(?P<value>\d+))?", item)
        assert m is not None, f"{file} enum {enum}: cannot read {item!r}"
        assert m["value"] is None or int(m["value"]) == k, f"{file} enum {enum}: {item} is not member {k}"
        members.append(m["name"])
    return members


#: C++ member -> the name it stands for, for the members not spelled as their name in capitals.
CATEGORY_MEMBERS = {
    "DNS": "dns",
    "CONN_SETUP": "connection_setup",
    "TLS_SETUP": "tls_setup",
    "REQUEST": "request",
    "SERVER": "server",
    "PROPAGATION": "propagation",
    "SERIALIZATION": "serialization",
    "SS_IDLE": "slow_start_idle",
    "DACK_STALL": "delayed_ack_stall",
    "NAGLE_STALL": "nagle_stall",
}


def test_breakdown_categories_in_the_python_order() -> None:
    members = enum_members("engine.hpp", "Cat")
    assert members[-1] == "NCAT", "Cat ends with its count, NCAT"
    assert [CATEGORY_MEMBERS.get(m, m) for m in members[:-1]] == list(CATEGORIES)
    pyx = (NATIVE / "_native.pyx").read_text()
    m = re.search(r"^NCAT = (\d+)$", pyx, re.M)
    assert m is not None and int(m[1]) == len(CATEGORIES), "_native.pyx's NCAT is the number of categories"


def _pyx_tuple(name: str) -> tuple[str | None, ...]:
    pyx = (NATIVE / "_native.pyx").read_text()
    m = re.search(rf"^{name} = \((.*)\)$", pyx, re.M)
    assert m is not None, f"_native.pyx: no {name} tuple"
    return tuple(None if x.strip() == "None" else x.strip().strip('"') for x in m[1].split(",") if x.strip())


def test_packet_kinds() -> None:
    members = enum_members("engine.hpp", "PKind")
    assert [m.removeprefix("K_") for m in members] == list(_pyx_tuple("KINDS"))


def test_what_held_data_back() -> None:
    members = enum_members("engine.hpp", "Reason")
    assert [None if m == "R_NONE" else m.removeprefix("R_").lower() for m in members] == list(_pyx_tuple("REASONS"))


def test_session_event_kinds() -> None:
    assert enum_members("session.hpp", "EventKind") == ["E_IDLE", "E_RESTART"]
    assert native.RESTART == enum_members("session.hpp", "EventKind").index("E_RESTART")


def test_loss_costing_causes() -> None:
    assert [m.lower() for m in enum_members("loss_recovery.cpp", "Cause")] == list(CAUSES)


def test_protocols() -> None:
    members = enum_members("params.hpp", "Protocol")
    assert {m.removeprefix("P_").lower() for m in members} == set(SCHEDULES)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("enum Cat : uint8_t { DNS = 0, CONN_SETUP = 2 };", "is not member 1"),
        ("enum Cat { dns };", "cannot read"),
    ],
)
def test_enum_members_refuses_what_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, complaint: str
) -> None:
    """The reader fails on a member out of order or a spelling it does not know, rather than skipping it."""
    (tmp_path / "x.hpp").write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "NATIVE", tmp_path)
    with pytest.raises(AssertionError, match=complaint):
        enum_members("x.hpp", "Cat")
