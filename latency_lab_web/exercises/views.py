"""Exercises over the model (issue 27): a student's problems drawn from a seed, a teacher's problem sets.

Pages (``/exercises``):

- ``GET /exercises/``: the templates, a form to draw one, and the teacher's form for a problem set;
- ``GET /exercises/<template>?seed=S[&answer=X][&solution=1]``: one problem; an answer is checked against the stated
  tolerance, and the worked solution follows (the textbook's formula with the numbers in, then the model's result and
  a link to its ladder on ``/explain``);
- ``GET /exercises/set?templates=a,b&seeds=1-30[&lock=L][&key=K]``: a problem set, each seed's problems together.
  Stateless answers-hidden: a set made with a passphrase carries ``lock`` (a hash of the set and the passphrase);
  its answers, worksheet key and exports show only with ``key`` = the passphrase (the teacher's address, or the
  address the teacher releases). A set without ``lock`` is open: answers shown;
- ``GET /exercises/<template>.pcap?seed=S``: the model's packets for the problem as a capture (pcap), for Wireshark;
- ``GET /exercises/set/new?templates=..&seeds=..[&passphrase=P]``: makes a set's two addresses (students', teacher's);
- ``GET /exercises/set/worksheet?...``: the printable worksheet (print CSS), the answer key on its last page(s);
- ``GET /exercises/set/qti.xml`` and ``/exercises/set/moodle.xml``: the set as IMS QTI 1.2 and Moodle XML
  (:mod:`latency_lab_web.exercises.export`), released sets only.

JSON (``/api/v1/exercises``): the templates; ``/api/v1/exercises/<template>?seed=S[&answer=X]``: one variant with its
solution (and the check); ``/api/v1/exercises/set?...``: a set's variants, answers only when released. Bad input is a
400 page or a problem+json naming the parameter and what it allows; never a 500.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from flask import Response, jsonify, render_template, request, url_for

from latency_lab import predict
from latency_lab.api_schema import EXERCISE_PARAMS
from latency_lab.scenario.errors import Problem
from latency_lab.studies import exercises as ex
from latency_lab_web.exercises import bp, export
from latency_lab_web.web.pcap import pcap
from latency_lab_web.web.problems import ApiError

KEY_PATTERN = re.compile(r"^[\x21-\x7e]{8,64}$")
KEY_ALLOWED = "8 to 64 printable characters, no spaces"
LOCK_PATTERN = re.compile(r"^[0-9a-f]{20}$")


class BadInput(Exception):
    """A parameter's problem: its name, what it allows and, for the API, the problem's type (a rule the OpenAPI
    document names in ``x-cross-field-rules``, :data:`latency_lab.api_schema.EXERCISE_RULES`, or a pattern mismatch)."""

    def __init__(self, name: str, message: str, kind: str = "value_error") -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message
        self.kind = kind


@dataclass(frozen=True)
class ProblemSet:
    templates: list[str]
    seeds: list[str]
    seeds_text: str
    lock: str | None
    key: str | None

    @property
    def released(self) -> bool:
        """Answers show: an open set (no lock), or the key that opens the lock."""
        if self.lock is None:
            return True
        return self.key is not None and hmac.compare_digest(
            lock_for(self.templates, self.seeds_text, self.key), self.lock
        )

    def query(self, with_key: bool) -> dict[str, str]:
        q = {"templates": ",".join(self.templates), "seeds": self.seeds_text}
        if self.lock:
            q["lock"] = self.lock
        if with_key and self.key and self.released:
            q["key"] = self.key
        return q

    @property
    def title(self) -> str:
        return f"latency-lab exercises, seeds {self.seeds_text}"

    @property
    def ident(self) -> str:
        digest = hashlib.sha256(f"{','.join(self.templates)}|{self.seeds_text}".encode()).hexdigest()[:12]
        return f"latency-lab-{digest}"


def lock_for(templates: list[str], seeds_text: str, key: str) -> str:
    """The lock a passphrase puts on a set: SHA-256 of the set and the passphrase, 20 hex digits."""
    text = f"latency-lab set|{','.join(templates)}|{seeds_text}|{key}"
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _arg(args: Mapping[str, str], name: str) -> str | None:
    value = args.get(name)
    return None if value is None or value == "" else value


def read_set(args: Mapping[str, str]) -> ProblemSet:
    """The set a query names; :class:`BadInput` for the first bad parameter."""
    try:
        templates = ex.parse_templates(args.get("templates", ""))
        seeds_text = args.get("seeds", "").replace(" ", "")
    except ex.ExerciseError as exc:
        raise BadInput(exc.field, exc.message) from None
    try:
        seeds = ex.parse_seeds(seeds_text)
    except ex.ExerciseError as exc:
        raise BadInput(exc.field, exc.message, "seed_range") from None
    try:
        ex.problem_set_size_check(len(templates), len(seeds))
    except ex.ExerciseError as exc:
        raise BadInput(exc.field, exc.message, "set_size") from None
    lock, key = _arg(args, "lock"), _arg(args, "key")
    if lock is not None and not LOCK_PATTERN.match(lock):
        raise BadInput("lock", "must be the 20 hexadecimal digits of the set's address")
    if key is not None and not KEY_PATTERN.match(key):
        raise BadInput("key", f"must be {KEY_ALLOWED}")
    return ProblemSet(templates, seeds, seeds_text, lock, key)


def read_variant(template: str, args: Mapping[str, str]) -> tuple[ex.Variant, ex.Verdict | None]:
    try:
        v = ex.variant(template, args.get("seed", "1"))
    except ex.ExerciseError as exc:
        raise BadInput(exc.field, exc.message) from None
    text = _arg(args, "answer")
    if text is None:
        return v, None
    try:
        answer = float(text)
    except ValueError:
        raise BadInput("answer", f"must be a number in {v.unit}, e.g. {ex.fmt(round(v.answer * 0.9, 1))}") from None
    if not math.isfinite(answer) or len(text) > 40:
        raise BadInput("answer", f"must be a finite number in {v.unit}", "answer_range")
    return v, ex.check(v, answer)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def explain_url(v: ex.Variant) -> str:
    """The teaching panel (its ladder, formula and stalls) for the variant's scenario."""
    q: dict[str, str] = {}
    for section, values in v.scenario.items():
        if section == "protocols":
            q["protocols"] = ",".join(values)
        else:
            for name, value in values.items():
                q[f"{section}.{name}"] = _query_value(value)
    q["protocol"] = v.protocol
    return url_for("teaching.explain") + "?" + urlencode(q)


def _bad_page(exc: BadInput) -> tuple[str, int]:
    return render_template("exercises/error.html", error=exc), 400


def _api_error(exc: BadInput) -> ApiError:
    return ApiError("invalid-request", str(exc), [Problem(path=exc.name, message=exc.message, type=exc.kind)])


def _api_params(*names: str) -> None:
    """The API's parameters checked against the patterns its OpenAPI document gives (:data:`EXERCISE_PARAMS`): a
    parameter given (even empty) that does not match is a :class:`BadInput` naming it."""
    for name in names:
        value = request.args.get(name)
        if value is None:
            continue
        spec = EXERCISE_PARAMS[name]
        if not re.fullmatch(spec["schema"]["pattern"], value):
            raise BadInput(
                name, f"does not match {spec['schema']['pattern']}: {spec['description']}", "string_pattern_mismatch"
            )


# --- pages -------------------------------------------------------------------------------------------------


@bp.get("/exercises/")
def index() -> str:
    return render_template("exercises/index.html", templates=list(ex.TEMPLATES.values()), max_set=ex.MAX_SET_VARIANTS)


@bp.get("/exercises/<template>")
def show(template: str) -> tuple[str, int]:
    try:
        v, verdict = read_variant(template, request.args)
    except BadInput as exc:
        return _bad_page(exc)
    solution = verdict is not None or request.args.get("solution") == "1"
    return (
        render_template(
            "exercises/exercise.html",
            v=v,
            verdict=verdict,
            solution=solution,
            explain=explain_url(v),
            fmt=ex.fmt,
            answer=request.args.get("answer", ""),
        ),
        200,
    )


@bp.get("/exercises/<template>.pcap")
def packets_pcap(template: str) -> Response | tuple[str, int]:
    """The model's packets for the problem's scenario as a pcap file (:mod:`latency_lab_web.exercises.pcap`), for Wireshark."""
    try:
        v, _ = read_variant(template, {"seed": request.args.get("seed", "1")})
    except BadInput as exc:
        return _bad_page(exc)
    result = predict(v.scenario, packets=True)["results"][0]
    data = pcap(
        result.get("packets", []),
        udp=v.protocol == "h3",
        tls=v.scenario.get("tls", {}).get("version", "none") != "none",
        receive_window_bytes=int(v.scenario["tcp"]["receive_window_bytes"]),
    )
    name = f"latency-lab-{v.template}-{v.seed}.pcap"
    return Response(
        data,
        mimetype="application/vnd.tcpdump.pcap",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.get("/exercises/set/new")
def new_set() -> tuple[str, int]:
    args = dict(request.args)
    passphrase = _arg(args, "passphrase")
    args.pop("passphrase", None)
    try:
        if passphrase is not None and not KEY_PATTERN.match(passphrase):
            raise BadInput("passphrase", f"must be {KEY_ALLOWED}")
        s = read_set(args)
    except BadInput as exc:
        return _bad_page(exc)
    if passphrase is not None:
        s = ProblemSet(s.templates, s.seeds, s.seeds_text, lock_for(s.templates, s.seeds_text, passphrase), passphrase)
    base = url_for("exercises.problem_set", _external=True)
    return (
        render_template(
            "exercises/new_set.html",
            s=s,
            students=base + "?" + urlencode(s.query(with_key=False)),
            teacher=base + "?" + urlencode(s.query(with_key=True)),
        ),
        200,
    )


def _set_page(template: str) -> tuple[str, int]:
    try:
        s = read_set(request.args)
        variants = ex.problem_set(s.templates, s.seeds)
    except BadInput as exc:
        return _bad_page(exc)
    except ex.ExerciseError as exc:
        return _bad_page(BadInput(exc.field, exc.message))
    by_seed: dict[str, list[ex.Variant]] = {}
    for v in variants:
        by_seed.setdefault(v.seed, []).append(v)
    q = urlencode(s.query(with_key=True))
    return (
        render_template(
            template,
            s=s,
            by_seed=by_seed,
            variants=variants,
            released=s.released,
            wrong_key=s.key is not None and not s.released,
            fmt=ex.fmt,
            explain_url=explain_url,
            worksheet=url_for("exercises.worksheet") + "?" + q,
            qti_url=url_for("exercises.qti_export") + "?" + q,
            moodle_url=url_for("exercises.moodle_export") + "?" + q,
            set_url=url_for("exercises.problem_set") + "?" + q,
        ),
        200,
    )


@bp.get("/exercises/set")
def problem_set() -> tuple[str, int]:
    return _set_page("exercises/set.html")


@bp.get("/exercises/set/worksheet")
def worksheet() -> tuple[str, int]:
    return _set_page("exercises/worksheet.html")


def _export(kind: str) -> Response | tuple[str, int]:
    try:
        s = read_set(request.args)
    except BadInput as exc:
        return _bad_page(exc)
    if not s.released:
        return render_template(
            "exercises/error.html", error=BadInput("key", "the set's answers are not released: give the teacher's key")
        ), 403
    variants = ex.problem_set(s.templates, s.seeds)
    if kind == "qti":
        data = export.qti(variants, s.title, s.ident)
    else:
        data = export.moodle(variants, s.title)
    name = f"{s.ident}-{'qti12' if kind == 'qti' else 'moodle'}.xml"
    return Response(
        data,
        mimetype="application/xml",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


@bp.get("/exercises/set/qti.xml")
def qti_export() -> Response | tuple[str, int]:
    return _export("qti")


@bp.get("/exercises/set/moodle.xml")
def moodle_export() -> Response | tuple[str, int]:
    return _export("moodle")


# --- JSON ---------------------------------------------------------------------------------------------------


@bp.get("/api/v1/exercises")
def api_templates() -> Response:
    return jsonify(
        {
            "templates": [
                {
                    "name": t.name,
                    "title": t.title,
                    "summary": t.summary,
                    "href": url_for("exercises.api_variant", template=t.name),
                }
                for t in ex.TEMPLATES.values()
            ]
        }
    )


@bp.get("/api/v1/exercises/<template>")
def api_variant(template: str) -> Response:
    try:
        _api_params("seed", "answer")
        v, verdict = read_variant(template, request.args)
    except BadInput as exc:
        raise _api_error(exc) from None
    doc: dict[str, Any] = v.as_dict()
    doc["explain"] = explain_url(v)
    if verdict is not None:
        doc["check"] = {"answer": verdict.given, "correct": verdict.correct, "text": verdict.text()}
    return jsonify(doc)


@bp.get("/api/v1/exercises/set")
def api_set() -> Response:
    try:
        _api_params("templates", "seeds", "lock", "key")
        s = read_set(request.args)
    except BadInput as exc:
        raise _api_error(exc) from None
    variants = ex.problem_set(s.templates, s.seeds)
    return jsonify(
        {
            "templates": s.templates,
            "seeds": s.seeds,
            "released": s.released,
            "problems": [v.as_dict(answers=s.released) for v in variants],
        }
    )
