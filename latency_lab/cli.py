"""The model's command line: ``python -m latency_lab predict``, ``har``, ``study``, ``exercise`` and ``presets`` (installed, the
``latency-lab`` command: each message names the command as it was called).

``predict FILE`` reads a scenario (a JSON object) or a what-if batch (a JSON array of them) and
prints the output document (or an array of them) as JSON, or as CSV with ``--format csv``: the API's answer, each
result listing at most ``max_listed`` events and path stalls with how many there are in all
(:func:`latency_lab.analysis.answer.listed`).
``--preset NAME`` starts from a preset's document and merges the file's fields on top. Bad input
exits with status 2 and one line per problem on stderr, naming the field path and what it allows.
Input is read and validated exactly as the JSON API reads a body: strict JSON
(:func:`latency_lab.scenario.json_input.loads_strict`: nesting at most ``max_json_depth`` deep, no repeated keys, no
``NaN``) and strict types (:func:`latency_lab.scenario.errors.validate_scenario`: ``"70"`` is not a number).

``predict --jsonl FILE`` (or a FILE named ``*.jsonl``) streams JSON Lines: one scenario a line in,
one output document a line out, in input order, each written as soon as it and the lines before it
are done; a bad line is recorded (on stderr, naming the line, and in its place in the output as
``{"line": N, "problems": [...]}``) and the stream goes on; the exit status is 2 if any line was bad.
``--jobs N`` predicts in N worker processes; ``--omit events,objects`` leaves those lists out of each result.
:func:`predict_document` is the one-scenario entry for distributed runs (a Dask bag over JSON Lines files:
docs/dask.md).

``har FILE`` reads a HAR (:mod:`latency_lab.scenario.har`) and prints its page (origins, objects, bytes, the initiator
tree's depth) and the model's prediction for it, with what-ifs (``--protocols``, ``--rtt-ms``, ``--bandwidth-bps``,
``--loss-rate``, ``--remove-origin``, ``--preconnect``, ``--early-hints``, ``--origin-rtt``, ``--origin-paths``), beside the HAR's own measured onLoad; ``--json`` prints the
answer :func:`latency_lab.studies.har.answer` gives (the API's).

``study DESIGN --out DIR`` runs a study (:mod:`latency_lab.studies.study`) into Parquet shards in DIR, resuming from
the shards already there.

SIGINT (Ctrl-C) and SIGTERM stop a run cleanly: the worker processes are stopped and waited for, no traceback,
exit status 130 or 143; a closed output pipe (``| head -1``) stops it quietly with status 141.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import functools
import importlib.metadata
import json
import os
import queue
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from typing import IO, Any

from pydantic import ValidationError

from latency_lab import engine_backend
from latency_lab.analysis.answer import listed
from latency_lab.analysis.jsontext import dumps
from latency_lab.analysis.predict import predict
from latency_lab.analysis.result import Prediction
from latency_lab.analysis.tables import csv_rows
from latency_lab.scenario import limits
from latency_lab.scenario.errors import allowed, did_you_mean, field_path, problems, validate_scenario
from latency_lab.scenario.har import HarError, WhatIf, load_har
from latency_lab.scenario.json_input import MAX_JSON_DEPTH, JsonInputError, check_depth, loads_strict
from latency_lab.scenario.limits import MAX_HAR_BYTES
from latency_lab.scenario.overlay import overlay
from latency_lab.scenario.schema import Scenario
from latency_lab.studies.presets import PRESETS
from latency_lab.studies.workers import worker_pool

PROG = "python -m latency_lab"
#: What a result's lists ``--omit`` can leave out.
OMITTABLE = ("events", "objects")


def prog_name(argv0: str | None = None) -> str:
    """The command as it was called: ``latency-lab`` (the installed command) or ``python -m latency_lab``."""
    name = os.path.basename(sys.argv[0] if argv0 is None else argv0)
    return "latency-lab" if name.startswith("latency-lab") else PROG


class UserError(Exception):
    """Bad input: each line of the message is one problem; the command exits with status 2."""


# --- reading and merging input ---------------------------------------------------------------


def _allowed_in_input(loc: tuple[str | int, ...]) -> str | None:
    """What the scenario field at ``loc`` of an input (a scenario, or ``[i]`` of a batch) allows, in words."""
    return allowed(loc[1:] if loc and isinstance(loc[0], int) else loc)


def loads_input(text: str, prefix: str = "", one_line: bool = False) -> Any:
    """JSON input (a scenario or a batch; ``one_line``: a JSON Lines line) read as the API reads a body
    (:func:`latency_lab.scenario.json_input.loads_strict`); :class:`UserError` with one line per problem, each after ``prefix``."""
    try:
        return loads_strict(text, describe=_allowed_in_input)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno} column {exc.colno}"
        raise UserError(f"{prefix}invalid JSON: {exc.msg} at {where}") from None
    except JsonInputError as exc:
        raise UserError("\n".join(f"{prefix}{p.text}" for p in exc.problems)) from None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def read_json(path: str) -> Any:
    """The JSON document in ``path`` (``-``: standard input); :class:`UserError` if unreadable or invalid."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        raise UserError(f"{name}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{name}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return loads_input(text, f"{name}: ")


def scenario_documents(data: Any, base: dict[str, Any] | None, source: str) -> list[dict[str, Any]]:
    """The scenario documents of parsed input (one object or an array), each merged onto ``base``."""
    items = data if isinstance(data, list) else [data]
    batch = isinstance(data, list)
    errors: list[str] = []
    docs: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            where = f"{source}: [{i}]" if batch else source
            what = "each item of the array" if batch else "the input"
            errors.append(f"{where}: {what} must be a scenario (a JSON object), not {_json_type(item)}")
            continue
        docs.append(overlay(base, item))
    if errors:
        raise UserError("\n".join(errors))
    return docs


def preset_document(name: str) -> dict[str, Any]:
    """A preset's scenario document (a copy); :class:`UserError` naming the presets if unknown."""
    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}{did_you_mean(name, PRESETS)}")
    return copy.deepcopy(PRESETS[name].document)


# --- validation ------------------------------------------------------------------------------


def validate(docs: Sequence[dict[str, Any]], batch: bool) -> list[Scenario]:
    """Validate every document as the API does (strict JSON types: :func:`latency_lab.scenario.errors.validate_scenario`);
    :class:`UserError` listing all problems of all documents."""
    scenarios: list[Scenario] = []
    lines: list[str] = []
    for i, doc in enumerate(docs):
        try:
            scenarios.append(validate_scenario(doc))
        except ValidationError as exc:
            lines.extend(p.text for p in problems(exc, at=(i,) if batch else ()))
    if lines:
        raise UserError("\n".join(lines))
    return scenarios


# --- one scenario at a time: worker processes, JSON Lines, Dask ------------------------------


def _predict_budgeted(scenario: Scenario, packets: bool = False, formulas: bool = False) -> Prediction:
    """``predict`` within one request's work budget (the API's, :func:`latency_lab.scenario.limits.budget`); over it a
    :class:`UserError` with the limit's message. The work estimate refuses first, before anything runs (the API's
    limits: :data:`~latency_lab.scenario.limits.MAX_WORK_UNITS`, with packets
    :data:`~latency_lab.scenario.limits.MAX_PACKETS_WORK_UNITS`). The document is the API's answer
    (:func:`latency_lab.analysis.answer.listed`): each result lists at most :data:`~latency_lab.scenario.limits.MAX_LISTED`
    events and path stalls, with ``events_total`` and ``path_stalls_total``."""
    limit = (
        limits.check(
            limits.work_units(scenario), limits.MAX_PACKETS_WORK_UNITS, "max_packets_work_units", "this prediction"
        )
        if packets
        else limits.check(limits.work_units(scenario), limits.MAX_WORK_UNITS, "max_work_units", "this prediction")
    )
    if limit is not None:
        raise UserError(limit.message)
    try:
        with limits.request_budget(packets):  # one scenario, one request's budget (the API's)
            out = predict(scenario, packets=packets, formulas=formulas)
    except limits.WorkLimitExceeded as exc:
        raise UserError(exc.limit.message) from None
    return listed(out)  # as the API answers: at most max_listed events and path stalls a result, with their totals


def _omitted(document: Prediction, omit: Sequence[str]) -> Prediction:
    """``document`` without the lists ``omit`` names (:data:`OMITTABLE`) in each result."""
    for r in document["results"]:
        for key in omit:
            r.pop(key, None)  # type: ignore[misc]
    return document


def _predict_omitting(
    scenario: Scenario, omit: Sequence[str], packets: bool = False, formulas: bool = False
) -> Prediction:
    return _omitted(_predict_budgeted(scenario, packets, formulas), omit)


def predict_document(
    scenario: Any,
    *,
    preset: str | None = None,
    packets: bool = False,
    formulas: bool = False,
    omit: Sequence[str] = (),
) -> Prediction:
    """The output document of one scenario document: the public entry for distributed runs (docs/dask.md).

    ``scenario`` is a scenario as parsed from JSON (a dict). This does for it what ``predict FILE``
    does for a file holding it: merges it onto ``preset``'s document (:func:`latency_lab.scenario.overlay.overlay`, as
    the calculator and the API do), validates it and predicts it within one request's work budget. Bad input raises
    :class:`UserError`, one line per problem in the command line's words (``network.rtt_ms: ...``),
    without a location: the caller knows where the scenario came from. A plain module-level function
    of its arguments, so it pickles by name into worker processes (``--jobs``) and Dask workers. ``omit``:
    result lists to leave out (``events``, ``objects``).
    """
    if not isinstance(scenario, dict):
        raise UserError(f"the input must be a scenario (a JSON object), not {_json_type(scenario)}")
    try:
        check_depth(scenario)  # before merging: as deep as JSON input may be (max_json_depth)
    except JsonInputError as exc:
        raise UserError("\n".join(p.text for p in exc.problems)) from None
    base = preset_document(preset) if preset is not None else None
    [valid] = validate(scenario_documents(scenario, base, "the input"), batch=False)
    return _omitted(_predict_budgeted(valid, packets, formulas), omit)


def _predict_line(
    line: bytes | str,
    preset: str | None = None,
    packets: bool = False,
    formulas: bool = False,
    omit: Sequence[str] = (),
) -> str:
    """One JSON Lines line (a scenario) in, its output document out as one line of compact JSON (no newline).

    What a worker of ``predict --jsonl`` runs; bad input raises :class:`UserError` without the line number.
    """
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError as exc:
        raise UserError(f"cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    data = loads_input(text, one_line=True)
    document = predict_document(data, preset=preset, packets=packets, formulas=formulas, omit=omit)
    return dumps(document)


def _located(prefix: str, exc: UserError) -> UserError:
    """``exc`` with ``prefix`` (where the input was: ``[3]: ``, ``<stdin>: line 4: ``) before each of its lines."""
    return UserError("\n".join(f"{prefix}{line}" for line in str(exc).splitlines()))


#: ``--jobs N`` sends a regular file's lines to the workers this many at a time (fewer hand-overs between
#: processes); lines from a pipe or terminal go one at a time, so that each is answered without waiting
#: for later input.
CHUNK_LINES = 16
#: ``--jobs N`` keeps at most this many chunks per worker in flight (sent, predicting or waiting to be
#: written), so memory stays bounded whatever the input's length.
IN_FLIGHT_PER_JOB = 4

Line = tuple[int, bytes | str]  # a line of input and its number (from 1)


Outcome = tuple[int, "str | UserError"]  # a line's number and its output line, or what was wrong with it


def _run_chunk(work: Callable[[bytes | str], str], lines: list[Line]) -> list[Outcome]:
    """``work`` on each line in turn (in a worker process): each line's number and result, or its error."""
    out: list[Outcome] = []
    for n, line in lines:
        try:
            out.append((n, work(line)))
        except UserError as exc:
            out.append((n, exc))
    return out


def _chunks(lines: Iterable[Line], size: int) -> Iterator[list[Line]]:
    """``lines`` in lists of ``size`` (the last may be shorter); if reading fails, the lines read before it first."""
    part: list[Line] = []
    try:
        for item in lines:
            part.append(item)
            if len(part) == size:
                yield part
                part = []
    except UserError:
        if part:
            yield part
        raise
    if part:
        yield part


def _stream_in_order(
    work: Callable[[bytes | str], str],
    lines: Iterable[Line],
    write: Callable[[str], None],
    bad: Callable[[int, UserError], None],
    jobs: int = 1,
    chunk: int = 1,
) -> int:
    """``write(work(line))`` for each numbered line, in input order, as each result is ready; for a line whose
    ``work`` raises :class:`UserError`, ``bad(n, error)`` in its place, and on. Returns how many lines were bad.

    With ``jobs`` > 1 ``work`` runs in that many worker processes, on ``chunk`` lines at a time, with at
    most :data:`IN_FLIGHT_PER_JOB` chunks per worker ahead of the writing. A thread of this process
    writes, so a result is written as soon as it and those before it are done, whether or not more
    input has come. A :class:`UserError` from reading the input (not UTF-8 is a bad line; an unreadable file is
    not) is raised after every line before it has been written.
    """
    count = 0
    if jobs == 1:
        for n, line in lines:
            try:
                result = work(line)
            except UserError as exc:
                bad(n, exc)
                count += 1
                continue
            write(result)
        return count
    window: queue.Queue[Future[list[Outcome]] | None]
    window = queue.Queue(maxsize=IN_FLIGHT_PER_JOB * jobs)
    failed: list[BaseException] = []  # the writer's first failure: stdout gone, the pool stopped

    def writer() -> None:
        nonlocal count
        while (future := window.get()) is not None:
            if failed:
                future.cancel()
                continue  # drain without waiting, so that the reader never blocks on a full window
            try:
                for n, result in future.result():
                    if isinstance(result, UserError):
                        bad(n, result)
                        count += 1
                    else:
                        write(result)
            except BaseException as exc:  # e.g. BrokenPipeError: raised again in the reading thread
                failed.append(exc)

    unreadable: UserError | None = None
    with worker_pool(jobs, __name__) as pool:
        thread = threading.Thread(target=writer, name="predict-jsonl-writer", daemon=True)
        thread.start()
        try:
            for part in _chunks(lines, chunk):
                if failed:
                    break
                window.put(pool.submit(_run_chunk, work, part))
        except UserError as exc:  # reading failed: the lines before it are written first (or fail first)
            unreadable = exc
        except BaseException as exc:  # interrupted (Ctrl-C, SIGTERM): the writer stops, the pool is stopped
            failed.append(exc)
            raise
        finally:
            window.put(None)
            thread.join()
    if failed:
        raise failed[0]
    if unreadable is not None:
        raise unreadable
    return count


def _is_regular_file(stream: IO[Any]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):  # no file descriptor (io.UnsupportedOperation is both)
        return False


@contextlib.contextmanager
def _lines(path: str) -> Iterator[tuple[Iterator[Line], bool]]:
    """The lines of ``path`` (``-``: standard input) as (line number from 1, line), blank lines left out,
    read one at a time (never the whole file), and whether it is a regular file (not a pipe or terminal);
    :class:`UserError` if it cannot be read."""
    name = "<stdin>" if path == "-" else path
    try:
        # bytes, decoded line by line, so that a bad byte is reported on its own line
        stream: IO[Any] = getattr(sys.stdin, "buffer", sys.stdin) if path == "-" else open(path, "rb")
    except OSError as exc:
        raise UserError(f"{name}: cannot read: {exc.strerror or exc}") from None

    def numbered() -> Iterator[Line]:
        n = 0
        try:
            for n, line in enumerate(stream, start=1):
                if line.strip():
                    yield n, line
        except OSError as exc:
            raise UserError(f"{name}: line {n + 1}: cannot read: {exc.strerror or exc}") from None

    try:
        yield numbered(), _is_regular_file(stream)
    finally:
        if path != "-":
            stream.close()


# --- output ---------------------------------------------------------------------------------


def _print_json(value: Any) -> None:
    sys.stdout.write(dumps(value, indent=2) + "\n")


# --- commands -------------------------------------------------------------------------------


def cmd_predict(args: argparse.Namespace) -> int:
    """``predict``: validate every scenario first, then print all output documents (JSON Lines: one at a time)."""
    if args.jsonl:
        return cmd_predict_jsonl(args)
    base = preset_document(args.preset) if args.preset is not None else None
    if args.file is None:
        assert base is not None
        data: Any = {}
        source = f"preset {args.preset}"
    else:
        data = read_json(args.file)
        source = "<stdin>" if args.file == "-" else args.file
    batch = isinstance(data, list)
    scenarios = validate(scenario_documents(data, base, source), batch)
    work = functools.partial(_predict_budgeted, packets=args.packets, formulas=args.formulas)
    if args.omit:
        work = functools.partial(_predict_omitting, omit=tuple(args.omit), packets=args.packets, formulas=args.formulas)
    with contextlib.ExitStack() as stack:
        if args.jobs > 1 and len(scenarios) > 1:
            pool = stack.enter_context(worker_pool(min(args.jobs, len(scenarios)), __name__))
            results: Iterable[Callable[[], Prediction]] = [pool.submit(work, s).result for s in scenarios]
        else:
            results = (functools.partial(work, s) for s in scenarios)
        documents = []
        for i, result in enumerate(results):
            try:
                documents.append(result())
            except UserError as exc:  # over the work limit
                raise _located(f"[{i}]: " if batch else "", exc) from None
    if args.format == "csv":
        csv.writer(sys.stdout, lineterminator="\n").writerows(csv_rows(documents, batch))
    else:
        _print_json(documents if batch else documents[0])
    return 0


def cmd_predict_jsonl(args: argparse.Namespace) -> int:
    """``predict --jsonl``: one output line per input line, in order, each flushed as it is written; a bad line
    is recorded (its problems on stderr, and ``{"line": N, "problems": [...]}`` in its place in the output) and
    the stream goes on; exit status 2 if any line was bad."""
    if args.preset is not None:
        preset_document(args.preset)  # an unknown preset fails before any input is read
    name = "<stdin>" if args.file == "-" else args.file
    work = functools.partial(
        _predict_line, preset=args.preset, packets=args.packets, formulas=args.formulas, omit=args.omit
    )

    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def bad(n: int, exc: UserError) -> None:
        lines = str(exc).splitlines()
        sys.stderr.write("".join(f"{args.prog} predict: error: {name}: line {n}: {line}\n" for line in lines))
        sys.stderr.flush()
        write(dumps({"line": n, "problems": lines}))

    with _lines(args.file) as (lines, regular):
        chunk = CHUNK_LINES if regular else 1
        count = _stream_in_order(work, lines, write, bad, jobs=args.jobs, chunk=chunk)
    return 2 if count else 0


def _read_har_bytes(path: str) -> bytes:
    """At most one byte more than ``MAX_HAR_BYTES`` of the file (``-``: standard input): the reader refuses more."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_HAR_BYTES + 1)
        with open(path, "rb") as f:
            return f.read(MAX_HAR_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{name}: cannot read: {exc.strerror or exc}") from None


#: The ``har`` command's what-if options and the WhatIf fields they give.
HAR_OPTIONS = {
    "protocols": "--protocols",
    "rtt_ms": "--rtt-ms",
    "bandwidth_bps": "--bandwidth-bps",
    "loss_rate": "--loss-rate",
    "remove_origins": "--remove-origin",
    "preconnect": "--preconnect",
    "early_hints": "--early-hints",
    "origin_rtts": "--origin-rtt",
    "origin_paths": "--origin-paths",
}


def _what_if(args: argparse.Namespace) -> WhatIf:
    given: dict[str, Any] = {
        "preconnect": args.preconnect,
        "early_hints": args.early_hints,
        "remove_origins": args.remove_origin,
        "origin_rtts": args.origin_rtt,
        "origin_paths": args.origin_paths,
    }
    for name in ("protocols", "rtt_ms", "bandwidth_bps", "loss_rate"):
        if getattr(args, name) is not None:
            given[name] = getattr(args, name)
    try:
        return WhatIf.model_validate(given)
    except ValidationError as exc:
        lines = []
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            option = HAR_OPTIONS.get(str(loc[0]), field_path(loc)) if loc else "the what-if"
            lines.append(f"{option}: {err['msg']} (got {err.get('input')!r})")
        raise UserError("\n".join(lines)) from None


def _har_text(doc: dict[str, Any], name: str) -> str:
    page = doc["page"]
    lines = [
        f"HAR {name} ({page['creator'] or 'creator not given'})",
        f"document: {page['document']} ({page['html_bytes']:,} bytes)",
        f"{page['objects']:,} objects, {page['wire_bytes']:,} bytes on the wire (HTML included), "
        f"initiator tree depth {page['tree_depth']}",
        "origins:",
    ]
    for o in page["origins"]:
        rtt = f"rtt {o['rtt_ms']:g} ms" if o["rtt_ms"] is not None else "rtt not shown"
        lines.append(f"  {o['origin']}  {o['protocol']}  {o['objects']:,} responses  {o['wire_bytes']:,} bytes  {rtt}")
    lines.extend(f"note: {n}" for n in doc["notes"])
    net = doc["scenario"].get("network", {})
    lines.append(
        "modelled: "
        + ", ".join(f"{k} {v:,.10g}" for k, v in net.items() if isinstance(v, int | float))
        + f", tls {doc['scenario']['tls']['version']}, {len(doc['scenario']['page']['object_bytes']):,} objects"
    )
    lines.append("predicted page load (ms):")
    measured = doc["measured"]
    for r in doc["results"]:
        line = f"  {r['protocol']:<20} {r['page_load_ms']:10.1f}"
        if r["expected_with_loss_ms"] != r["page_load_ms"]:
            line += f"  (with loss, expected {r['expected_with_loss_ms']:.1f})"
        if r["protocol"] == measured["protocol"]:
            on_load = measured["on_load_ms"]
            line += "  the HAR's protocol; measured onLoad " + (
                f"{on_load:.1f}" if on_load is not None else "not given"
            )
        lines.append(line)
    return "\n".join(lines) + "\n"


def cmd_har(args: argparse.Namespace) -> int:
    """``har``: a HAR's page, and the model's prediction for it with what-ifs, beside the HAR's measured onLoad."""
    from latency_lab.studies.har import answer

    what_if = _what_if(args)
    name = "<stdin>" if args.file == "-" else args.file
    try:
        page = load_har(_read_har_bytes(args.file))
        with limits.request_budget():
            doc = answer(page, what_if).model_dump(mode="json")
    except HarError as exc:
        raise UserError("\n".join(f"{name}: {p.text}" for p in exc.problems)) from None
    except limits.WorkLimitExceeded as exc:
        raise UserError(f"{name}: {exc.limit.message}") from None
    if args.json:
        _print_json(doc)
    else:
        sys.stdout.write(_har_text(doc, name))
    return 0


def cmd_study(args: argparse.Namespace) -> int:
    """``study``: run a design (latency_lab.studies.study) into Parquet shards in ``--out``; a summary line on stdout."""
    try:
        from latency_lab.studies import study  # pandas, pyarrow: imported for this command only
    except ModuleNotFoundError as exc:  # the extra latency-lab[studies] is not installed
        sys.stderr.write(f"error: {exc}\n")
        return 1

    try:
        design = study.load_design(read_json(args.design))
        study.run_study(
            design,
            args.out,
            shard_size=args.shard_size,
            jobs=args.jobs,
            progress=None if args.progress is None else args.progress,
            frame=False,
        )
        failed = study.failed_scenarios(args.out)
    except study.StudyError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write: {exc.strerror or exc}") from None
    n = study.scenario_count(design)
    shards = -(-n // args.shard_size)
    sys.stdout.write(f"{n:,} scenarios in {shards:,} shards in {args.out}; {failed:,} failed (see the error column)\n")
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    """``presets``: one line per preset (name, title, citation), or all of it as JSON."""
    if args.json:
        _print_json(
            [
                {
                    "name": p.name,
                    "title": p.title,
                    "citation": p.citation,
                    "assumptions": p.assumptions,
                    "fitted": p.fitted,
                    "document": p.document,
                }
                for p in PRESETS.values()
            ]
        )
        return 0
    width = max((len(name) for name in PRESETS), default=0)
    for p in PRESETS.values():
        sys.stdout.write(f"{p.name:<{width}}  {p.title}; {p.citation}\n")
    return 0


def _omit(text: str) -> list[str]:
    """``--omit``'s value: a comma-separated list of :data:`OMITTABLE`."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    wrong = [t for t in names if t not in OMITTABLE]
    if wrong or not names:
        raise argparse.ArgumentTypeError(
            f"must be one or more of {', '.join(OMITTABLE)}, separated by commas, not {text!r}"
        )
    return list(dict.fromkeys(names))


def _whole(what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = 0
        if n < 1:
            raise argparse.ArgumentTypeError(f"must be a whole number of {what}, at least 1, not {text!r}")
        return n

    return parse


def _jobs(text: str) -> int:
    """``--jobs``'s value: a whole number, at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of worker processes, at least 1, not {text!r}")
    return n


def version_text() -> str:
    """``latency-lab VERSION (engine: native|python, ...)``: the installed version and the engine that runs."""
    try:
        version = importlib.metadata.version("latency-lab")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        version = "(not installed)"
    if engine_backend() == "native":
        how = ": C++, and the Python engine for formulas"
    else:
        how = ": the native one is off or not built; pip install -e . builds it"
    return f"latency-lab {version} (engine: {engine_backend()}{how})"


def cmd_exercise(args: argparse.Namespace) -> int:
    """``exercise``: a template's variant for a seed (latency_lab.studies.exercises), or the list of templates."""
    from latency_lab.studies import exercises

    if args.template is None:
        for t in exercises.TEMPLATES.values():
            print(f"{t.name:16} {t.title}: {t.summary}")
        return 0
    try:
        v = exercises.variant(args.template, args.seed)
        verdict = exercises.check(v, args.answer) if args.answer is not None else None
    except exercises.ExerciseError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        doc = v.as_dict(answers=not args.hide)
        if verdict is not None:
            doc["check"] = {"answer": verdict.given, "correct": verdict.correct}
        print(dumps(doc))
    else:
        print(f"{v.title} (template {v.template}, seed {v.seed})\n\n{v.question}\n")
        print("Assumptions:\n" + "\n".join(f"- {a}" for a in v.assumptions))
        print(f"\nAnswer in {v.unit}, accepted {v.tolerance_text}.")
        if verdict is not None:
            print(verdict.text())
        if not args.hide:
            print(f"\nAnswer: {exercises.fmt(v.answer)} {v.unit}\n{v.formula}\n{v.substituted}")
            print("\n".join(f"  {i}. {step}" for i, step in enumerate(v.steps, 1)))
            print(f"Source: {v.citation}")
    return 0 if verdict is None or verdict.correct else 1


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser of ``python -m latency_lab`` (``prog``: the command as it was called, :func:`prog_name`)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="latency-lab's model: predict page load times of HTTP over TCP for what-if scenarios.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=version_text(),
        help="print the version and which engine runs (native, or the Python reference) and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "predict",
        help="predict a scenario (or a batch of them) and print the output document",
        description="Print the output document of a scenario (a JSON object) as JSON, or an array of output "
        "documents for an array of scenarios. Problems in the input exit with status 2. Input is read as the JSON "
        f"API reads a body: strict JSON (arrays and objects nested at most {MAX_JSON_DEPTH} deep, max_json_depth; "
        'no key twice in an object; no NaN or Infinity) and strict types ("70" and true are not numbers).',
        epilog="JSON Lines (--jsonl, or a FILE whose name ends in .jsonl):\n"
        "  FILE (or standard input, -) is read one line at a time, never whole: each non-blank line is one\n"
        "  scenario (a JSON object; --preset merges under each). Each line's output document is printed as\n"
        "  one line of JSON, in input order, flushed as soon as it and the lines before it are done. The\n"
        "  bad line (invalid JSON, a bad field, over the work limit) is recorded and the stream goes on: its\n"
        "  problems on stderr ('FILE: line N: field: ...') and, in its place in the output, a line\n"
        '  {"line": N, "problems": [...]}; the exit status is then 2. --format csv does not go with JSON Lines.\n'
        "  Ctrl-C or SIGTERM stops the run and its workers (status 130, 143); a closed pipe stops it quietly (141).\n"
        "\n"
        "examples:\n"
        f"  {prog} predict scenario.json\n"
        f'  echo \'{{"network": {{"rtt_ms": 20}}}}\' | {prog} predict -\n'
        f"  {prog} predict --preset h96-lan\n"
        f"  {prog} predict --preset pm94-remote --format csv batch.json\n"
        f"  {prog} predict --jobs 4 scenarios.jsonl > results.jsonl\n"
        f"  ./make_scenarios | {prog} predict --jsonl --preset h96-lan - | ./analyse",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help="JSON file with a scenario or an array of scenarios, or JSON Lines (see --jsonl); - reads standard input",
    )
    p.add_argument(
        "--preset",
        metavar="NAME",
        help="start from this preset: FILE's fields are merged on top (nested objects merge, arrays replace; a given "
        "network.rtt_ms replaces its one-way delays, page.object_count or object_size_bytes its object list); "
        f"see '{prog} presets'",
    )
    p.add_argument(
        "--format",
        choices=("json", "csv"),
        default="json",
        help="output format (default: json); csv has one row per protocol, and for an array of scenarios a "
        "first column 'scenario' with the scenario's index",
    )
    p.add_argument(
        "--jsonl",
        action="store_true",
        help="read FILE as JSON Lines: one scenario per line in, one output document per line out (see below); "
        "on by itself for a FILE whose name ends in .jsonl, needed for standard input",
    )
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="predict in N worker processes (default: 1, in this process); the output keeps the input's order. "
        "For JSON Lines and for an array of scenarios",
    )
    p.add_argument(
        "--omit",
        type=_omit,
        default=[],
        metavar="LISTS",
        help=f"leave these lists out of each result, comma-separated: {', '.join(OMITTABLE)} (most of a document's "
        "size; the times, breakdown, counts and expected time with loss stay)",
    )
    p.add_argument("--packets", action="store_true", help="include each result's packet schedule (JSON only)")
    p.add_argument(
        "--formulas",
        action="store_true",
        help="include each result's formula (text, LaTeX, MathML, with numbers) and the glossary (JSON only)",
    )
    p.set_defaults(handler=cmd_predict, parser=p)

    ph = sub.add_parser(
        "har",
        help="read a HAR (DevTools, WebPageTest, Firefox) and predict its page, with what-ifs",
        description="Read the HAR FILE (HTTP Archive 1.2, at most "
        f"{MAX_HAR_BYTES:,} bytes: save it without contents) and print its page (origins, objects, bytes on the "
        "wire, the initiator tree's depth) and the model's page load time for it, beside the HAR's own onLoad. "
        "Today the model has one origin: every origin's objects are served by the document's. A malformed HAR, or "
        "a bad what-if, exits with status 2 naming the field.",
        epilog="examples:\n"
        f"  {prog} har page.har\n"
        f"  {prog} har page.har --protocols h2,h3 --rtt-ms 150 --loss-rate 0.01\n"
        f"  {prog} har page.har --remove-origin https://ads.example:443 --preconnect --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ph.add_argument("file", metavar="FILE", help="the HAR file (- reads standard input)")
    ph.add_argument(
        "--protocols",
        type=lambda text: [t.strip() for t in text.split(",") if t.strip()],
        metavar="LIST",
        help="protocols to predict, comma-separated (default: persistent_parallel,h2,h3)",
    )
    ph.add_argument("--rtt-ms", type=float, metavar="MS", help="round trip (default: the HAR's connect times)")
    ph.add_argument("--bandwidth-bps", type=float, metavar="BPS", help="bottleneck rate (default: the HAR's estimate)")
    ph.add_argument("--loss-rate", type=float, metavar="P", help="packet loss probability, 0 to 0.2 (default 0)")
    ph.add_argument(
        "--remove-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="drop this origin's objects and what they initiated (scheme://host:port as listed); repeatable",
    )
    ph.add_argument("--preconnect", action="store_true", help="open the browser's connections at the click")
    ph.add_argument(
        "--early-hints",
        action="store_true",
        help="h2, h3: a 103 Early Hints names the HTML's style sheets and scripts and preconnects the other origins",
    )
    ph.add_argument(
        "--origin-rtt",
        action="append",
        default=[],
        metavar="ORIGIN=MS",
        help="put this origin on a path of its own at this round trip (a CDN nearby; scheme://host:port as listed); "
        "repeatable",
    )
    ph.add_argument(
        "--origin-paths",
        action="store_true",
        help="every other origin on a path of its own at the round trip its connect times show",
    )
    ph.add_argument("--json", action="store_true", help="print the answer as JSON (the API's)")
    ph.set_defaults(handler=cmd_har, parser=ph)

    st = sub.add_parser(
        "study",
        help="run a study (a design of many scenarios) into Parquet shards",
        description="Run the study DESIGN (a JSON file: a grid, random or Sobol design of scenario fields; see "
        "latency_lab.studies.study) and write one row per scenario and protocol to Parquet shards in --out "
        "(shard-00000.parquet, ...), with the version, engine and design in each file's metadata. Shards already in "
        "--out for the same design are kept (a rerun resumes); a failed scenario is a row with its error. Problems "
        "in the design exit with status 2.",
        epilog="example design (grid):\n"
        '  {"preset": "n97-wan", "protocols": ["http10", "persistent", "h2"],\n'
        '   "fields": {"network.rtt_ms": {"values": [10, 50, 100]}, "page.object_count": {"values": [1, 10, 40]}}}\n'
        'random: "kind": "random", "samples": N, "seed": S, each field {"low": A, "high": B} or '
        '{"values": [...]};\n'
        'sobol: "kind": "sobol", "samples": N (a power of 2: N x (fields + 2) scenarios), each field low and high.\n\n'
        f"  {prog} study design.json --out results/ --jobs 2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    st.add_argument("design", metavar="DESIGN", help="the design, a JSON file (- reads standard input)")
    st.add_argument("--out", required=True, metavar="DIR", help="the folder of the Parquet shards (made if need be)")
    st.add_argument("--jobs", type=_jobs, default=1, metavar="N", help="worker processes (default: 1)")
    st.add_argument(
        "--shard-size",
        type=_whole("scenarios"),
        default=10_000,
        metavar="N",
        help="scenarios per shard (default: 10,000); a rerun must give the same",
    )
    st.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: on a terminal, for 1,000 scenarios or more)",
    )
    st.set_defaults(handler=cmd_study, parser=st)

    pe = sub.add_parser(
        "exercise",
        help="an exercise drawn from a seed, with its worked solution (docs/exercises.md)",
        description="Print an exercise of TEMPLATE drawn from --seed (a student id or a number): the problem, "
        "and unless --hide the answer and worked solution; --answer X checks X (exit 0 correct, 1 not). "
        "Without TEMPLATE: list the templates.",
    )
    pe.add_argument("template", metavar="TEMPLATE", nargs="?", help="a template name; none lists them")
    pe.add_argument("--seed", default="1", help="the seed: a student id or a number (default: 1)")
    pe.add_argument("--answer", type=float, metavar="X", help="check this answer (in the problem's unit)")
    pe.add_argument("--hide", action="store_true", help="leave out the answer and the worked solution")
    pe.add_argument("--json", action="store_true", help="print the exercise as JSON")
    pe.set_defaults(handler=cmd_exercise, parser=pe)

    ps = sub.add_parser("presets", help="list the presets", description="List the presets: name, title, citation.")
    ps.add_argument(
        "--json", action="store_true", help="print them as JSON, with assumptions, fitted notes and document"
    )
    ps.set_defaults(handler=cmd_presets, parser=ps)
    return parser


class Terminated(BaseException):
    """SIGTERM arrived: raised in the main thread, so that every ``finally`` runs (the worker pool is stopped)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: the way out is under way
    raise Terminated


@contextlib.contextmanager
def _clean_exit() -> Iterator[list[int]]:
    """SIGTERM raised as :class:`Terminated` in the main thread while the body runs; the exit status to use
    instead of the body's in the list yielded: 130 after Ctrl-C, 143 after SIGTERM, 141 when stdout was closed
    (``| head -1``), with no traceback and no output after it."""
    status: list[int] = []
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if on_main else None
    try:
        yield status
        sys.stdout.flush()
    except KeyboardInterrupt:
        status.append(130)
    except Terminated:
        status.append(143)
    except BrokenPipeError:
        status.append(141)
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
    if status and status[0] == 141:
        # The reader went away: stdout goes nowhere from now on, so that flushing it at exit raises nothing.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    prog = prog_name()
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
        args.prog = prog
        if args.command == "predict":
            if args.file is None and args.preset is None:
                args.parser.error("give a FILE (- for standard input) or --preset NAME, or both")
            args.jsonl = args.jsonl or (args.file is not None and args.file.endswith(".jsonl"))
            if args.jsonl and args.file is None:
                args.parser.error("--jsonl needs a FILE of JSON Lines (- for standard input)")
            if args.jsonl and args.format == "csv":
                args.parser.error(
                    "--format csv does not go with JSON Lines (--jsonl, or a FILE named *.jsonl): each output line "
                    "is a JSON document; for CSV give a JSON array of scenarios"
                )
            if args.packets and args.format == "csv":
                args.parser.error("--packets needs --format json (a packet schedule is not a CSV row)")
            if args.formulas and args.format == "csv":
                args.parser.error("--formulas needs --format json (a formula is not a CSV cell)")
            if args.omit and args.format == "csv":
                args.parser.error("--omit needs --format json (a CSV row has no events or objects)")
    except SystemExit as exc:  # argparse's usage errors (status 2) and --help (status 0)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    status = 0
    with _clean_exit() as stopped:
        try:
            status = args.handler(args)
        except UserError as exc:
            for line in str(exc).splitlines():
                sys.stderr.write(f"{prog} {args.command}: error: {line}\n")
            status = 2
    return stopped[0] if stopped else status
