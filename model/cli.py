"""The model's command line: ``python -m model predict`` and ``python -m model presets``.

``predict FILE`` reads a scenario (a JSON object) or a what-if batch (a JSON array of them) and
prints the output document (or an array of them) as JSON, or as CSV with ``--format csv``.
``--preset NAME`` starts from a preset's document and merges the file's fields on top. Bad input
exits with status 2 and one line per problem on stderr, naming the field path and what it allows.
Input is read and validated exactly as the JSON API reads a body: strict JSON
(:func:`model.scenario.json_input.loads_strict`: nesting at most ``max_json_depth`` deep, no repeated keys, no
``NaN``) and strict types (:func:`model.scenario.errors.validate_scenario`: ``"70"`` is not a number).

``predict --jsonl FILE`` (or a FILE named ``*.jsonl``) streams JSON Lines: one scenario a line in,
one output document a line out, in input order, each written as soon as it and the lines before it
are done; the first bad line stops the stream (exit 2, naming the line). ``--jobs N`` predicts in N
worker processes. :func:`predict_document` is the one-scenario entry for distributed runs (a Dask
bag over JSON Lines files: docs/dask.md).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import difflib
import functools
import importlib.metadata
import json
import multiprocessing
import os
import queue
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import IO, Any

from pydantic import ValidationError

from model import engine_backend
from model.analysis import native
from model.analysis.jsontext import dumps
from model.analysis.predict import predict
from model.analysis.result import Prediction
from model.analysis.tables import csv_rows
from model.scenario import limits
from model.scenario.errors import allowed, problems, validate_scenario
from model.scenario.json_input import MAX_JSON_DEPTH, JsonInputError, check_depth, loads_strict
from model.scenario.overlay import overlay
from model.scenario.schema import Scenario
from model.studies.presets import PRESETS

PROG = "python -m model"


class UserError(Exception):
    """Bad input: each line of the message is one problem; the command exits with status 2."""


# --- reading and merging input ---------------------------------------------------------------


def _allowed_in_input(loc: tuple[str | int, ...]) -> str | None:
    """What the scenario field at ``loc`` of an input (a scenario, or ``[i]`` of a batch) allows, in words."""
    return allowed(loc[1:] if loc and isinstance(loc[0], int) else loc)


def loads_input(text: str, prefix: str = "", one_line: bool = False) -> Any:
    """JSON input (a scenario or a batch; ``one_line``: a JSON Lines line) read as the API reads a body
    (:func:`model.scenario.json_input.loads_strict`); :class:`UserError` with one line per problem, each after ``prefix``."""
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
        close = difflib.get_close_matches(name, PRESETS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UserError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}{hint}")
    return copy.deepcopy(PRESETS[name].document)


# --- validation ------------------------------------------------------------------------------


def validate(docs: Sequence[dict[str, Any]], batch: bool) -> list[Scenario]:
    """Validate every document as the API does (strict JSON types: :func:`model.scenario.errors.validate_scenario`);
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
    """``predict`` within one request's work budget (the API's, :func:`model.scenario.limits.budget`); over it a
    :class:`UserError` with the limit's message. The work estimate refuses first, before anything runs (the API's
    limits: :data:`~model.scenario.limits.MAX_WORK_UNITS`, with packets
    :data:`~model.scenario.limits.MAX_PACKETS_WORK_UNITS`)."""
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
            return predict(scenario, packets=packets, formulas=formulas)
    except limits.WorkLimitExceeded as exc:
        raise UserError(exc.limit.message) from None


def predict_document(
    scenario: Any, *, preset: str | None = None, packets: bool = False, formulas: bool = False
) -> Prediction:
    """The output document of one scenario document: the public entry for distributed runs (docs/dask.md).

    ``scenario`` is a scenario as parsed from JSON (a dict). This does for it what ``predict FILE``
    does for a file holding it: merges it onto ``preset``'s document (:func:`model.scenario.overlay.overlay`, as
    the calculator and the API do), validates it and predicts it within one request's work budget. Bad input raises
    :class:`UserError`, one line per problem in the command line's words (``network.rtt_ms: ...``),
    without a location: the caller knows where the scenario came from. A plain module-level function
    of its arguments, so it pickles by name into worker processes (``--jobs``) and Dask workers.
    """
    if not isinstance(scenario, dict):
        raise UserError(f"the input must be a scenario (a JSON object), not {_json_type(scenario)}")
    try:
        check_depth(scenario)  # before merging: as deep as JSON input may be (max_json_depth)
    except JsonInputError as exc:
        raise UserError("\n".join(p.text for p in exc.problems)) from None
    base = preset_document(preset) if preset is not None else None
    [valid] = validate(scenario_documents(scenario, base, "the input"), batch=False)
    return _predict_budgeted(valid, packets, formulas)


def _predict_line(line: bytes | str, preset: str | None = None, packets: bool = False, formulas: bool = False) -> str:
    """One JSON Lines line (a scenario) in, its output document out as one line of compact JSON (no newline).

    What a worker of ``predict --jsonl`` runs; bad input raises :class:`UserError` without the line number.
    """
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError as exc:
        raise UserError(f"cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    data = loads_input(text, one_line=True)
    document = predict_document(data, preset=preset, packets=packets, formulas=formulas)
    return dumps(document)


def _located(prefix: str, exc: UserError) -> UserError:
    """``exc`` with ``prefix`` (where the input was: ``[3]: ``, ``<stdin>: line 4: ``) before each of its lines."""
    return UserError("\n".join(f"{prefix}{line}" for line in str(exc).splitlines()))


@contextlib.contextmanager
def _process_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes; on the way out work not yet started is cancelled and the workers are waited for.

    They are forked from a fork server that has imported the model once (so they start at once and share
    its memory), or started afresh where there is no fork server (Windows): never forked from this
    process, which has threads (the JSON Lines writer's).
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        context: Any = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
    else:  # pragma: no cover - Windows
        context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


#: ``--jobs N`` sends a regular file's lines to the workers this many at a time (fewer hand-overs between
#: processes); lines from a pipe or terminal go one at a time, so that each is answered without waiting
#: for later input.
CHUNK_LINES = 16
#: ``--jobs N`` keeps at most this many chunks per worker in flight (sent, predicting or waiting to be
#: written), so memory stays bounded whatever the input's length.
IN_FLIGHT_PER_JOB = 4

Line = tuple[int, bytes | str]  # a line of input and its number (from 1)


def _run_chunk(work: Callable[[bytes | str], str], lines: list[Line]) -> tuple[list[str], tuple[int, UserError] | None]:
    """``work`` on each line in turn (in a worker process): the results up to the first bad line, and that
    line's number and error (None if none was bad)."""
    results: list[str] = []
    for n, line in lines:
        try:
            results.append(work(line))
        except UserError as exc:
            return results, (n, exc)
    return results, None


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
    where: Callable[[int], str],
    jobs: int = 1,
    chunk: int = 1,
) -> None:
    """``write(work(line))`` for each numbered line, in input order, as each result is ready.

    With ``jobs`` > 1 ``work`` runs in that many worker processes, on ``chunk`` lines at a time, with at
    most :data:`IN_FLIGHT_PER_JOB` chunks per worker ahead of the writing. A thread of this process
    writes, so a result is written as soon as it and those before it are done, whether or not more
    input has come. A :class:`UserError` from line ``n`` is raised with ``where(n)`` before each of its
    lines, after every line before it has been written; nothing after it is written and no more input is
    read (with ``jobs`` > 1: once the line being read, if any, has come).
    """
    if jobs == 1:
        for n, line in lines:
            try:
                result = work(line)
            except UserError as exc:
                raise _located(where(n), exc) from None
            write(result)
        return
    window: queue.Queue[Future[tuple[list[str], tuple[int, UserError] | None]] | None]
    window = queue.Queue(maxsize=IN_FLIGHT_PER_JOB * jobs)
    failed: list[BaseException] = []  # the writer's first failure: a bad line, or stdout gone

    def writer() -> None:
        while (future := window.get()) is not None:
            if failed:
                continue  # drain without waiting, so that the reader never blocks on a full window
            try:
                results, bad = future.result()
                for result in results:
                    write(result)
            except BaseException as exc:  # e.g. BrokenPipeError: raised again in the reading thread
                failed.append(exc)
            else:
                if bad is not None:
                    failed.append(_located(where(bad[0]), bad[1]))

    unreadable: UserError | None = None
    with _process_pool(jobs) as pool:
        thread = threading.Thread(target=writer, name="predict-jsonl-writer", daemon=True)
        thread.start()
        try:
            for part in _chunks(lines, chunk):
                if failed:
                    break
                window.put(pool.submit(_run_chunk, work, part))
        except UserError as exc:  # reading failed: the lines before it are written first (or fail first)
            unreadable = exc
        finally:
            window.put(None)
            thread.join()
    if failed:
        raise failed[0]
    if unreadable is not None:
        raise unreadable


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
    with contextlib.ExitStack() as stack:
        if args.jobs > 1 and len(scenarios) > 1:
            pool = stack.enter_context(_process_pool(min(args.jobs, len(scenarios))))
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
    """``predict --jsonl``: one output line per input line, in order, each flushed as it is written; the
    first bad line stops the stream (what came before it is printed, then the error)."""
    if args.preset is not None:
        preset_document(args.preset)  # an unknown preset fails before any input is read
    name = "<stdin>" if args.file == "-" else args.file
    work = functools.partial(_predict_line, preset=args.preset, packets=args.packets, formulas=args.formulas)

    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    with _lines(args.file) as (lines, regular):
        chunk = CHUNK_LINES if regular else 1
        _stream_in_order(work, lines, write, lambda n: f"{name}: line {n}: ", jobs=args.jobs, chunk=chunk)
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
    """``latency-lab VERSION (engine: compiled|python, ...)``: the installed version and the engine that runs."""
    try:
        version = importlib.metadata.version("latency-lab")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        version = "(not installed)"
    if engine_backend() != "compiled":
        how = "; pip install -e . builds the compiled one"
    elif native.available():
        how = ": native C++, and the Python engine compiled by Cython for split proxies and loss"
    else:
        how = ": the Python engine compiled by Cython (the native one is off or not built)"
    return f"latency-lab {version} (engine: {engine_backend()}{how})"


def cmd_exercise(args: argparse.Namespace) -> int:
    """``exercise``: a template's variant for a seed (model.studies.exercises), or the list of templates."""
    from model.studies import exercises

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m model``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="latency-lab's model: predict page load times of HTTP over TCP for what-if scenarios.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=version_text(),
        help="print the version and which engine runs (compiled, or the Python reference) and exit",
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
        "  first bad line (invalid JSON, a bad field, over the work limit) stops the stream: the documents\n"
        "  of the lines before it are printed, then its problems on stderr ('FILE: line N: field: ...'),\n"
        "  and the exit status is 2. --format csv does not go with JSON Lines.\n"
        "\n"
        "examples:\n"
        f"  {PROG} predict scenario.json\n"
        f'  echo \'{{"network": {{"rtt_ms": 20}}}}\' | {PROG} predict -\n'
        f"  {PROG} predict --preset h96-lan\n"
        f"  {PROG} predict --preset pm94-remote --format csv batch.json\n"
        f"  {PROG} predict --jobs 4 scenarios.jsonl > results.jsonl\n"
        f"  ./make_scenarios | {PROG} predict --jsonl --preset h96-lan - | ./analyse",
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
        f"see '{PROG} presets'",
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
    p.add_argument("--packets", action="store_true", help="include each result's packet schedule (JSON only)")
    p.add_argument(
        "--formulas",
        action="store_true",
        help="include each result's formula (text, LaTeX, MathML, with numbers) and the glossary (JSON only)",
    )
    p.set_defaults(handler=cmd_predict, parser=p)

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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
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
    except SystemExit as exc:  # argparse's usage errors (status 2) and --help (status 0)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        status: int = args.handler(args)
    except UserError as exc:
        for line in str(exc).splitlines():
            sys.stderr.write(f"{PROG} {args.command}: error: {line}\n")
        return 2
    return status
