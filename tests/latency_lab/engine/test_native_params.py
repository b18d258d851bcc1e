"""Every engine parameter declared once (issue 29): the four places that spell the native engine's parameters agree.

The numbers of a resolved scenario are written four times: :class:`latency_lab.scenario.params.Params` and
:class:`latency_lab.scenario.profiles.TcpProfile` (the source of truth), ``struct Profile`` / ``struct Params`` in
``latency_lab/engine/native/params.hpp``, their re-declaration for Cython in ``_native.pyx``'s ``cdef extern`` block, and
the field-by-field copy in ``_native.pyx`` (``_profile`` and ``Prepared.__init__``). Nothing in the build checks that
they match: a member Cython does not declare, or one the copy forgets, keeps the C++ default and changes numbers only
for the scenarios that use it. This module reads the three texts and the two dataclasses and checks, with no engine
built:

(a) ``params.hpp`` and ``_native.pyx`` declare the same members of ``Profile`` and ``Params`` with the same types,
    and the pyx's enum dictionaries (``HANDSHAKES`` ...) give each name the value of the ``.hpp`` enum's member;
(b) every member of the C++ ``Profile`` is a :class:`TcpProfile` field of the same name, and ``_profile`` copies each
    exactly once from the field of its own name;
(c) ``Prepared.__init__`` assigns every member of the C++ ``Params`` exactly once, from the :class:`Params` field of
    its own name (the exceptions: :data:`DIFFERENT_NAMES`), with a compatible type where it copies a field as it is,
    and every field it reads exists;
(d) every :class:`TcpProfile` and :class:`Params` field the copy does not read is listed, with its reason, in
    :data:`PYTHON_ONLY_PROFILE_FIELDS` / :data:`PYTHON_ONLY_PARAMS_FIELDS`, so a new field fails here until it is
    either copied or declared Python-only.

The parsers are strict: a line of a parsed block that is not one of the forms they know raises :class:`Unparsable`
(the test fails) rather than being skipped. :func:`problems` takes the texts and the fields as arguments, so the
negative tests below feed it mutated copies of the real sources and check the exact complaint.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from latency_lab.scenario.params import Params
from latency_lab.scenario.profiles import TcpProfile

NATIVE = Path(__file__).resolve().parents[3] / "latency_lab" / "engine" / "native"
HPP = NATIVE / "params.hpp"
PYX = NATIVE / "_native.pyx"

#: TcpProfile fields the C++ engine does not read (field -> why). Exactly these: a field listed here that is also
#: copied, or that no longer exists, fails too.
PYTHON_ONLY_PROFILE_FIELDS: dict[str, str] = {
    "name": "a label: latency_lab.analysis.symbolic's sentences name the profile; no engine rule reads it",
    "description": "text for the user (latency_lab.scenario.errors, the app)",
    "field_defaults": "the scenario's defaults, applied by latency_lab.scenario.schema before Params exists",
}
#: Params fields the C++ engine does not read (field -> why), exactly these.
PYTHON_ONLY_PARAMS_FIELDS: dict[str, str] = {
    "symmetric_delay": "latency_lab.analysis.symbolic's formulas only; the engines read d_up and d_down",
    "symmetric_rate": "latency_lab.analysis.symbolic's formulas only; the engines read k_up and k_down",
    "loss": "the loss analysis is Python's (latency_lab.analysis.expected_loss); run() gets only `loss > 0` as its flag",
}
#: Members of the C++ Params not copied from the Params field of their own name (member -> the fields they are
#: computed from). ``quic_profile`` is filled from Prepared's second argument, latency_lab.mechanisms.quic.QUIC_PROFILE.
DIFFERENT_NAMES: dict[str, frozenset[str]] = {
    "has_idle_timeout": frozenset({"idle_timeout"}),
    "quic_profile": frozenset(),
    # split proxies (seed 003): latency_lab.scenario.params.ProxyParams' numbers, each leg's window resolved with rwnd
    "has_proxy": frozenset({"proxy"}),
    **{
        m: frozenset({"proxy"})
        for m in ("d_c", "k_c", "d_s", "k_s", "proxy_connections", "proxy_mux", "rto_c", "rto_s")
    },
    **{m: frozenset({"proxy", "rwnd"}) for m in ("rwnd_x", "rwnd_c", "rwnd_s")},
}
#: The pyx's dictionaries from a Params string to a C++ enum's value -> (the .hpp enum, its members' prefix); a
#: dictionary key is the member's name without the prefix, lower case, without dots ("1.2" is TLS_12).
ENUMS: dict[str, tuple[str, str]] = {
    "HANDSHAKES": ("HandshakeMode", "HS_"),
    "IDLE_RESTARTS": ("IdleRestart", "IR_"),
    "TLS_VERSIONS": ("TlsVersion", "TLS_"),
    "RESUMPTIONS": ("Resumption", "RES_"),
    "PROTOCOLS": ("Protocol", "P_"),
}
#: The Cython spelling of a C++ type, where the two differ (vector[T] is std::vector<T>).
CYTHON_TYPES = {"cbool": "bool"}
#: C++ member type -> the Python annotations a copy of the field as it is (``c.x = p.x``) may carry. Anything else
#: (a str into an int, an int into a bool) converts silently or fails only at run time.
COMPATIBLE = {
    "double": {"float"},
    "long long": {"int"},
    "int": {"int"},
    "bool": {"bool"},
    "Profile": {"TcpProfile"},
    "std::vector<long long>": {"tuple[int, ...]", "tuple[bool, ...]"},
    "std::vector<double>": {"tuple[float, ...]"},
}

Members = dict[str, str]  # member -> its C++ type, in declaration order


class Unparsable(AssertionError):
    """A line of a parsed block is not one of the forms the parser knows: teach it, do not skip the line."""


# ----------------------------------------------------------------------------------------------- params.hpp


def _block(text: str, header: str, where: str) -> str:
    """The body of the one C++ ``header { ... };`` in ``text`` (``header`` a regex; the body has no braces)."""
    found = re.findall(rf"^{header}\s*\{{([^{{}}]*)\}};", text, flags=re.MULTILINE)
    if len(found) != 1:
        raise Unparsable(f"{where}: {len(found)} blocks `{header} {{...}};`, want one")
    return str(found[0])


#: One C++ declaration: a type and one or more names, each with an optional literal initializer.
_HPP_DECL = re.compile(
    r"(?P<type>std::vector<long long>|std::vector<double>|long long|double|bool|int|Profile)\s+(?P<names>[^;]+);"
)
_HPP_NAME = re.compile(r"(?P<name>[a-z_][a-z0-9_]*)(\s*=\s*(true|false|-?\d+(\.\d*)?([eE]-?\d+)?))?")


def hpp_struct(text: str, struct: str) -> Members:
    """The members of ``struct <struct>`` in params.hpp: one declaration per line, ``//`` comments allowed."""
    where = f"params.hpp struct {struct}"
    body = _block(text, rf"struct {struct}", where)
    members: Members = {}
    for raw in body.splitlines()[1:]:  # [0] is the rest of the opening line (a comment at most)
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        m = _HPP_DECL.fullmatch(line)
        if m is None or "/*" in line:
            raise Unparsable(f"{where}: cannot read {raw.strip()!r}")
        for item in m["names"].split(","):
            n = _HPP_NAME.fullmatch(item.strip())
            if n is None:
                raise Unparsable(f"{where}: cannot read {item.strip()!r} in {raw.strip()!r}")
            if n["name"] in members:
                raise Unparsable(f"{where}: {n['name']} declared twice")
            members[n["name"]] = m["type"]
    if body.splitlines()[0].split("//", 1)[0].strip():
        raise Unparsable(f"{where}: a declaration on the opening line")
    return members


def hpp_enum(text: str, enum: str) -> dict[str, int]:
    """``enum <enum> { A = 0, B, ... };``: each member's value (implicit ones follow the previous by one)."""
    where = f"params.hpp enum {enum}"
    body = _block(text, rf"enum {enum}", where)
    values: dict[str, int] = {}
    value = -1
    for item in body.split(","):
        m = re.fullmatch(r"\s*(?P<name>[A-Z][A-Z0-9_]*)(\s*=\s*(?P<value>\d+))?\s*", item)
        if m is None:
            raise Unparsable(f"{where}: cannot read {item.strip()!r}")
        value = int(m["value"]) if m["value"] is not None else value + 1
        values[m["name"]] = value
    return values


# ---------------------------------------------------------------------------------------------- _native.pyx


def _indented(lines: list[str], header: str, where: str) -> list[str]:
    """The lines under the one line that matches ``header`` (a regex over the stripped line), dedented; blank lines
    dropped. Its body is every following line indented deeper than it."""
    at = [i for i, line in enumerate(lines) if re.fullmatch(header, line.strip())]
    if len(at) != 1:
        raise Unparsable(f"{where}: {len(at)} lines matching {header!r}, want one")
    indent = len(lines[at[0]]) - len(lines[at[0]].lstrip())
    body: list[str] = []
    for line in lines[at[0] + 1 :]:
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    if not body:
        raise Unparsable(f"{where}: nothing under {header!r}")
    deeper = min(len(line) - len(line.lstrip()) for line in body)
    return [line[deeper:] for line in body]


_PYX_DECL = re.compile(
    r"(?P<type>vector\[long long\]|vector\[double\]|long long|double|cbool|int|Profile)\s+(?P<names>\w+(\s*,\s*\w+)*)"
)


def pyx_class(text: str, name: str) -> Members:
    """The members of ``cdef cppclass <name>`` (or ``cdef struct``) in the pyx's ``cdef extern from "params.hpp"``
    block, their types in C++ spelling."""
    where = f"_native.pyx cdef extern from params.hpp, {name}"
    extern = _indented(text.splitlines(), r'cdef extern from "params\.hpp" namespace "ll":', where)
    members: Members = {}
    for raw in _indented(extern, rf"cdef (cppclass|struct) {name}:", where):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _PYX_DECL.fullmatch(line)
        if m is None:
            raise Unparsable(f"{where}: cannot read {raw.strip()!r}")
        t = CYTHON_TYPES.get(m["type"], m["type"])
        t = re.sub(r"^vector\[(.*)\]$", r"std::vector<\1>", t)
        for member in (x.strip() for x in m["names"].split(",")):
            if member in members:
                raise Unparsable(f"{where}: {member} declared twice")
            members[member] = t
    return members


def pyx_enums(text: str) -> dict[str, dict[str, int]]:
    """The pyx's module-level ``NAME = {...}`` dictionaries named in :data:`ENUMS`."""
    out: dict[str, dict[str, int]] = {}
    for name in ENUMS:
        found = re.findall(rf"^{name} = (\{{.*\}})$", text, flags=re.MULTILINE)
        if len(found) != 1:
            raise Unparsable(f"_native.pyx: {len(found)} lines `{name} = {{...}}`, want one")
        out[name] = ast.literal_eval(found[0])
    return out


def profile_copy(text: str) -> list[tuple[str, str]]:
    """``_profile``'s assignments ``out.<member> = pr.<field>`` in order, as (member, field)."""
    where = "_native.pyx _profile"
    copies: list[tuple[str, str]] = []
    for line in _indented(text.splitlines(), r"cdef void _profile\(Profile\* out, object pr\):", where):
        m = re.fullmatch(r"out\.(?P<member>\w+) = pr\.(?P<field>\w+)", line.strip())
        if m is None:
            raise Unparsable(f"{where}: cannot read {line.strip()!r}")
        copies.append((m["member"], m["field"]))
    return copies


@dataclass
class Assignment:
    """One member of the C++ Params filled by ``Prepared.__init__``."""

    member: str
    #: "copy" (c.x = p.y), "enum" (c.x = ENUM[p.y]), "profile" (_profile(&c.x, ...)), "fill" (a vector filled in a
    #: loop) or "computed" (any other expression: its reads are checked, not its type)
    how: str
    reads: set[str] = field(default_factory=set)  # the Params fields it reads
    enum: str | None = None  # for "enum": the dictionary


def _reads(expr: str, names: set[str], where: str) -> set[str]:
    """The Params fields ``expr`` reads (``p.<field>``); any other name it uses must be in ``names``."""
    reads: set[str] = set()
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise Unparsable(f"{where}: cannot read {expr!r}") from e
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "p":
            reads.add(node.attr)
        elif isinstance(node, ast.Name) and node.id not in names | {"p"}:
            raise Unparsable(f"{where}: {expr!r} uses {node.id}, neither p nor one of {sorted(names)}")
    return reads


def params_copy(text: str) -> list[Assignment]:
    """``Prepared.__init__``'s assignments to the C++ Params, in order. Known statements: ``cdef Params* c =
    &self.c``; ``c.<member> = <expr>``; ``_profile(&c.<member>, <expr>)``; ``c.<member>.clear()`` followed by
    ``for <v> in <expr>:`` and ``c.<member>.push_back(<v>)``."""
    where = "_native.pyx Prepared.__init__"
    prepared = _indented(text.splitlines(), r"cdef class Prepared:", where)
    body = _indented(prepared, r"def __init__\(self, p, quic_profile\):", where)
    names = set(ENUMS) | {"quic_profile"}
    out: list[Assignment] = []
    lines = iter(body)
    for line in lines:
        s = line.strip()
        if line != s:
            raise Unparsable(f"{where}: an indented line outside a known loop: {s!r}")
        if s == "cdef Params* c = &self.c":
            continue
        if m := re.fullmatch(r"_profile\(&c\.(?P<member>\w+), (?P<expr>.+)\)", s):
            out.append(Assignment(m["member"], "profile", _reads(m["expr"], names, where)))
        elif m := re.fullmatch(r"c\.(?P<member>\w+)\.clear\(\)", s):
            loop, push = next(lines, ""), next(lines, "")
            f = re.fullmatch(r"for (?P<v>\w+) in (?P<expr>.+):", loop)
            if f is None or push != f"    c.{m['member']}.push_back({f['v']})":
                raise Unparsable(f"{where}: {s!r} not followed by `for v in ...:` and `c.{m['member']}.push_back(v)`")
            out.append(Assignment(m["member"], "fill", _reads(f["expr"], names, where)))
        elif m := re.fullmatch(r"c\.(?P<member>\w+) = (?P<expr>.+)", s):
            expr, reads = m["expr"], _reads(m["expr"], names, where)
            if e := re.fullmatch(r"(?P<enum>[A-Z_]+)\[p\.\w+\]", expr):
                out.append(Assignment(m["member"], "enum", reads, e["enum"]))
            elif re.fullmatch(r"p\.\w+", expr):
                out.append(Assignment(m["member"], "copy", reads))
            else:
                out.append(Assignment(m["member"], "computed", reads))
        else:
            raise Unparsable(f"{where}: cannot read {s!r}")
    return out


# ------------------------------------------------------------------------------------------------ the checks


def python_fields(cls: type) -> dict[str, str]:
    """A dataclass's fields -> their annotations as written (the modules use ``from __future__ import annotations``)."""
    out: dict[str, str] = {}
    for f in dataclasses.fields(cls):
        assert isinstance(f.type, str), (cls, f.name)
        out[f.name] = f.type
    return out


def _counted(names: list[str]) -> dict[str, int]:
    return {n: names.count(n) for n in names}


def problems(
    hpp: str, pyx: str, profile_fields: dict[str, str] | None = None, params_fields: dict[str, str] | None = None
) -> list[str]:
    """Every disagreement between params.hpp, _native.pyx and the Python fields (TcpProfile's, Params'), one
    sentence each, naming the member or field; empty when they agree."""
    pf = python_fields(TcpProfile) if profile_fields is None else profile_fields
    qf = python_fields(Params) if params_fields is None else params_fields
    out: list[str] = []

    # (a) the .hpp and the pyx declare the same members with the same types, and the same enum values
    for struct in ("Profile", "Params"):
        h, x = hpp_struct(hpp, struct), pyx_class(pyx, struct)
        out += [f"{struct}.{n}: in params.hpp, not declared in _native.pyx" for n in h if n not in x]
        out += [f"{struct}.{n}: declared in _native.pyx, not in params.hpp" for n in x if n not in h]
        out += [f"{struct}.{n}: {h[n]} in params.hpp, {x[n]} in _native.pyx" for n in h if n in x and h[n] != x[n]]
    dicts = pyx_enums(pyx)
    for name, (enum, prefix) in ENUMS.items():
        values = hpp_enum(hpp, enum)
        keys = {prefix + k.upper().replace(".", ""): v for k, v in dicts[name].items()}
        out += [
            f"{name}: {k} is {v} in _native.pyx, {values.get(k)} in params.hpp"
            for k, v in keys.items()
            if values.get(k) != v
        ]
        out += [f"{name}: {k} of params.hpp's enum {enum} has no key in _native.pyx" for k in values if k not in keys]

    # (b) every member of the C++ Profile is a TcpProfile field, copied by _profile once, from the field of its name
    profile = hpp_struct(hpp, "Profile")
    copies = profile_copy(pyx)
    out += [f"Profile.{n}: not a field of TcpProfile" for n in profile if n not in pf]
    counts = _counted([m for m, _ in copies])
    out += [
        f"Profile.{n}: assigned {counts.get(n, 0)} times by _profile (want once)"
        for n in profile
        if counts.get(n, 0) != 1
    ]
    out += [
        f"Profile.{m}: _profile assigns it, not a member of params.hpp's Profile" for m in counts if m not in profile
    ]
    out += [f"Profile.{m}: _profile copies it from pr.{f}, want pr.{m}" for m, f in copies if m != f]
    out += [f"TcpProfile.{f}: _profile reads it, not a field of TcpProfile" for _, f in copies if f not in pf]
    out += [
        f"Profile.{m}: {profile[m]} copied from TcpProfile.{f}: {pf[f]}"
        for m, f in copies
        if m in profile and f in pf and pf[f] not in COMPATIBLE.get(profile[m], set())
    ]

    # (c) Prepared.__init__ assigns every member of the C++ Params once, from the field of its name, reading fields
    params = hpp_struct(hpp, "Params")
    filled = params_copy(pyx)
    counts = _counted([a.member for a in filled])
    out += [
        f"Params.{n}: assigned {counts.get(n, 0)} times by Prepared.__init__ (want once)"
        for n in params
        if counts.get(n, 0) != 1
    ]
    for a in filled:
        t = params.get(a.member)
        if t is None:
            out.append(f"Params.{a.member}: Prepared.__init__ assigns it, not a member of params.hpp's Params")
            continue
        want = DIFFERENT_NAMES.get(a.member, frozenset({a.member}))
        if a.reads != want:
            out.append(f"Params.{a.member}: Prepared.__init__ reads {sorted(a.reads)} for it, want {sorted(want)}")
        out += [f"Params.{f}: Prepared.__init__ reads p.{f}, not a field of Params" for f in sorted(a.reads - set(qf))]
        source = qf.get(next(iter(a.reads))) if len(a.reads) == 1 else None  # the field it copies
        if a.how in ("copy", "fill", "profile") and source is not None and source not in COMPATIBLE.get(t, set()):
            out.append(f"Params.{a.member}: {t} copied from a Params field annotated {source}")
        if a.how == "profile" and t != "Profile":
            out.append(f"Params.{a.member}: filled by _profile, but its type is {t}")
        if a.how == "enum" and (t != "int" or a.enum not in ENUMS):
            out.append(f"Params.{a.member}: {t} from {a.enum}[...], want an int from one of {sorted(ENUMS)}")

    # (d) a Python field the C++ engine does not read is declared Python-only, and a declared one is not read
    copied = {f for _, f in copies}
    for cls, fields, read, listed, table in (
        ("TcpProfile", pf, copied, PYTHON_ONLY_PROFILE_FIELDS, "PYTHON_ONLY_PROFILE_FIELDS"),
        ("Params", qf, set().union(*(a.reads for a in filled)), PYTHON_ONLY_PARAMS_FIELDS, "PYTHON_ONLY_PARAMS_FIELDS"),
    ):
        out += [
            f"{cls}.{f}: neither copied to the C++ engine nor in {table}" for f in fields if f not in read | set(listed)
        ]
        out += [f"{cls}.{f}: in {table}, but copied to the C++ engine" for f in listed if f in read]
        out += [f"{cls}.{f}: in {table}, not a field of {cls}" for f in listed if f not in fields]
    return out


# ------------------------------------------------------------------------------------------------- the tests


def test_every_parameter_is_declared_alike_everywhere() -> None:
    found = problems(HPP.read_text(), PYX.read_text())
    assert not found, "params.hpp, _native.pyx and the Python fields disagree:\n" + "\n".join(found)


def test_the_parsers_read_every_member() -> None:
    """The parsers see all of them (not an empty agreement): the counts of today's sources."""
    hpp, pyx = HPP.read_text(), PYX.read_text()
    assert len(hpp_struct(hpp, "Profile")) == len(pyx_class(pyx, "Profile")) == len(profile_copy(pyx)) == 20
    assert len(hpp_struct(hpp, "Params")) == len(pyx_class(pyx, "Params")) == len(params_copy(pyx)) == 80
    assert hpp_struct(hpp, "Params")["objects"] == "std::vector<long long>"
    assert pyx_class(pyx, "Params")["tls_early_data"] == "bool"


def _edit(text: str, old: str, new: str) -> str:
    """``text`` with its one ``old`` replaced (a negative test whose edit no longer applies fails, not passes)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


Mutation = Callable[[str, str], tuple[str, str]]

NEGATIVE: list[tuple[str, Mutation, list[str]]] = [
    (
        "a member gone from the .hpp's Profile",
        lambda h, x: (_edit(h, "  bool pingpong_ack = false;\n", ""), x),
        [
            "Profile.pingpong_ack: declared in _native.pyx, not in params.hpp",
            "Profile.pingpong_ack: _profile assigns it, not a member of params.hpp's Profile",
        ],
    ),
    (
        "a member gone from a list in the .hpp's Params",
        lambda h, x: (_edit(h, "long long tls_client_hello, tls_server_flight;", "long long tls_client_hello;"), x),
        [
            "Params.tls_server_flight: declared in _native.pyx, not in params.hpp",
            "Params.tls_server_flight: Prepared.__init__ assigns it, not a member of params.hpp's Params",
        ],
    ),
    (
        "a member gone from the pyx's Params",
        lambda h, x: (h, _edit(x, "        cbool preconnect\n", "")),
        ["Params.preconnect: in params.hpp, not declared in _native.pyx"],
    ),
    (
        "a type that differs",
        lambda h, x: (h, _edit(x, "        double rto_max_ms\n", "        long long rto_max_ms\n")),
        ["Profile.rto_max_ms: double in params.hpp, long long in _native.pyx"],
    ),
    (
        "an assignment gone from Prepared.__init__",
        lambda h, x: (h, _edit(x, "        c.tls_tickets = p.tls_tickets\n", "")),
        [
            "Params.tls_tickets: assigned 0 times by Prepared.__init__ (want once)",
            "Params.tls_tickets: neither copied to the C++ engine nor in PYTHON_ONLY_PARAMS_FIELDS",
        ],
    ),
    (
        "an assignment gone from _profile",
        lambda h, x: (h, _edit(x, "    out.nagle_minshall = pr.nagle_minshall\n", "")),
        [
            "Profile.nagle_minshall: assigned 0 times by _profile (want once)",
            "TcpProfile.nagle_minshall: neither copied to the C++ engine nor in PYTHON_ONLY_PROFILE_FIELDS",
        ],
    ),
    (
        "an assignment made twice",
        lambda h, x: (h, _edit(x, "        c.mss = p.mss\n", "        c.mss = p.mss\n        c.mss = p.mss\n")),
        ["Params.mss: assigned 2 times by Prepared.__init__ (want once)"],
    ),
    (
        "a member filled from another field",
        lambda h, x: (h, _edit(x, "        c.dack_ms = p.dack_ms\n", "        c.dack_ms = p.rto_ms\n")),
        [
            "Params.dack_ms: Prepared.__init__ reads ['rto_ms'] for it, want ['dack_ms']",
            "Params.dack_ms: neither copied to the C++ engine nor in PYTHON_ONLY_PARAMS_FIELDS",
        ],
    ),
    (
        "a field the copy reads that Params does not have",
        lambda h, x: (h, _edit(x, "        c.iw = p.iw\n", "        c.iw = p.initial_window\n")),
        [
            "Params.iw: Prepared.__init__ reads ['initial_window'] for it, want ['iw']",
            "Params.initial_window: Prepared.__init__ reads p.initial_window, not a field of Params",
            "Params.iw: neither copied to the C++ engine nor in PYTHON_ONLY_PARAMS_FIELDS",
        ],
    ),
    (
        "an enum's members in another order",
        lambda h, x: (_edit(h, "RES_NONE = 0, RES_AFTER_FIRST, RES_ALL", "RES_NONE = 0, RES_ALL, RES_AFTER_FIRST"), x),
        [
            "RESUMPTIONS: RES_AFTER_FIRST is 1 in _native.pyx, 2 in params.hpp",
            "RESUMPTIONS: RES_ALL is 2 in _native.pyx, 1 in params.hpp",
        ],
    ),
]


@pytest.mark.parametrize(("edit", "expected"), [(m, e) for _, m, e in NEGATIVE], ids=[n for n, _, _ in NEGATIVE])
def test_a_mutated_source_is_reported(edit: Mutation, expected: list[str]) -> None:
    hpp, pyx = edit(HPP.read_text(), PYX.read_text())
    assert problems(hpp, pyx) == expected


def test_a_new_python_field_must_be_copied_or_declared_python_only() -> None:
    hpp, pyx = HPP.read_text(), PYX.read_text()
    assert problems(hpp, pyx, profile_fields={**python_fields(TcpProfile), "ecn": "bool"}) == [
        "TcpProfile.ecn: neither copied to the C++ engine nor in PYTHON_ONLY_PROFILE_FIELDS"
    ]
    assert problems(hpp, pyx, params_fields={**python_fields(Params), "jitter_ms": "float"}) == [
        "Params.jitter_ms: neither copied to the C++ engine nor in PYTHON_ONLY_PARAMS_FIELDS"
    ]
    no_name = {k: v for k, v in python_fields(TcpProfile).items() if k != "name"}
    assert problems(hpp, pyx, profile_fields=no_name) == [
        "TcpProfile.name: in PYTHON_ONLY_PROFILE_FIELDS, not a field of TcpProfile"
    ]


def test_a_python_field_copied_with_another_type_is_reported() -> None:
    fields = {**python_fields(Params), "nagle": "int"}
    assert problems(HPP.read_text(), PYX.read_text(), params_fields=fields) == [
        "Params.nagle: bool copied from a Params field annotated int"
    ]


@pytest.mark.parametrize(
    ("where", "old", "new", "match"),
    [
        ("hpp", "  double rto_ms;\n", "  double rto_ms; double extra;\n", "cannot read 'double rto_ms; double extra;'"),
        ("hpp", "  int handshake;\n", "  unsigned handshake;\n", "cannot read 'unsigned handshake;'"),
        (
            "hpp",
            "  double rto_max_ms = 60000.0;\n",
            "  double rto_max_ms = 6e4 * k;\n",
            "cannot read 'rto_max_ms = 6e4 \\* k'",
        ),
        ("pyx", "        double user_think\n", "        float user_think\n", "cannot read 'float user_think'"),
        ("pyx", "        c.pages = p.pages\n", "        setattr(c, 'pages', p.pages)\n", 'cannot read "setattr'),
        ("pyx", "        c.html = p.html\n", "        c.html = self.html\n", "uses self"),
    ],
)
def test_an_unreadable_line_fails(where: str, old: str, new: str, match: str) -> None:
    hpp, pyx = HPP.read_text(), PYX.read_text()
    if where == "hpp":
        hpp = _edit(hpp, old, new)
    else:
        pyx = _edit(pyx, old, new)
    with pytest.raises(Unparsable, match=match):
        problems(hpp, pyx)
