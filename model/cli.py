"""The model's command line: ``python -m model predict`` and ``python -m model presets``.

``predict FILE`` reads a scenario (a JSON object) or a what-if batch (a JSON array of them) and
prints the output document (or an array of them) as JSON, or as CSV with ``--format csv``.
``--preset NAME`` starts from a preset's document and merges the file's fields on top. Bad input
exits with status 2 and one line per problem on stderr, naming the field path and what it allows.
"""

from __future__ import annotations

import argparse
import copy
import csv
import difflib
import json
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from model.errors import problems
from model.expected_loss import CAUSES
from model.predict import predict
from model.presets import PRESETS
from model.scenario import Scenario

PROG = "python -m model"


class UserError(Exception):
    """Bad input: each line of the message is one problem; the command exits with status 2."""


# --- reading and merging input ---------------------------------------------------------------


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``: nested dicts merge, anything else (lists too) replaces."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


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
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{name}: invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


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
        docs.append(deep_merge(base, item) if base is not None else item)
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
    """Validate every document; :class:`UserError` listing all problems of all documents."""
    scenarios: list[Scenario] = []
    lines: list[str] = []
    for i, doc in enumerate(docs):
        try:
            scenarios.append(Scenario.model_validate(doc))
        except ValidationError as exc:
            lines.extend(p.text for p in problems(exc, at=(i,) if batch else ()))
    if lines:
        raise UserError("\n".join(lines))
    return scenarios


# --- output ---------------------------------------------------------------------------------


#: The CSV columns of a result's expected_with_loss block (dotted below it).
LOSS_COLUMNS = (
    "loss_rate",
    "page_load_ms",
    "extra_ms",
    *(f"by_cause_ms.{c}" for c in CAUSES),
    "head_of_line_ms",
)


def _loss_cell(block: dict[str, Any], key: str) -> Any:
    head, _, rest = key.partition(".")
    return block[head][rest] if rest else block[head]


def csv_rows(documents: Sequence[dict[str, Any]], batch: bool) -> list[list[Any]]:
    """Header and one row per protocol: [scenario,] protocol, page_load_ms, breakdown_ms.*, counts.*, then the
    expected value under random loss (:data:`LOSS_COLUMNS`: expected_with_loss.*, zeros with no loss)."""
    results = [(i, r) for i, d in enumerate(documents) for r in d["results"]]
    breakdown = list(dict.fromkeys(k for _, r in results for k in r["breakdown_ms"]))
    counts = list(dict.fromkeys(k for _, r in results for k in r["counts"]))
    header = [
        *(["scenario"] if batch else []),
        "protocol",
        "page_load_ms",
        *(f"breakdown_ms.{k}" for k in breakdown),
        *(f"counts.{k}" for k in counts),
        *(f"expected_with_loss.{k}" for k in LOSS_COLUMNS),
    ]
    rows: list[list[Any]] = [header]
    for i, r in results:
        rows.append(
            [
                *([i] if batch else []),
                r["protocol"],
                r["page_load_ms"],
                *(r["breakdown_ms"].get(k, "") for k in breakdown),
                *(r["counts"].get(k, "") for k in counts),
                *(_loss_cell(r["expected_with_loss"], k) for k in LOSS_COLUMNS),
            ]
        )
    return rows


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, allow_nan=False) + "\n")


# --- commands -------------------------------------------------------------------------------


def cmd_predict(args: argparse.Namespace) -> int:
    """``predict``: validate every scenario first, then print all output documents."""
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
    documents = [predict(s, packets=args.packets, formulas=args.formulas) for s in scenarios]
    if args.format == "csv":
        csv.writer(sys.stdout, lineterminator="\n").writerows(csv_rows(documents, batch))
    else:
        _print_json(documents if batch else documents[0])
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m model``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="latency-lab's model: predict page load times of HTTP over TCP for what-if scenarios.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "predict",
        help="predict a scenario (or a batch of them) and print the output document",
        description="Print the output document of a scenario (a JSON object) as JSON, or an array of output "
        "documents for an array of scenarios. Problems in the input exit with status 2.",
        epilog="examples:\n"
        f"  {PROG} predict scenario.json\n"
        f'  echo \'{{"network": {{"rtt_ms": 20}}}}\' | {PROG} predict -\n'
        f"  {PROG} predict --preset h96-lan\n"
        f"  {PROG} predict --preset pm94-remote --format csv batch.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help="JSON file with a scenario or an array of scenarios; - reads standard input",
    )
    p.add_argument(
        "--preset",
        metavar="NAME",
        help="start from this preset: FILE's fields are merged on top (nested objects merge, arrays replace); "
        f"see '{PROG} presets'",
    )
    p.add_argument(
        "--format",
        choices=("json", "csv"),
        default="json",
        help="output format (default: json); csv has one row per protocol, and for an array of scenarios a "
        "first column 'scenario' with the scenario's index",
    )
    p.add_argument("--packets", action="store_true", help="include each result's packet schedule (JSON only)")
    p.add_argument(
        "--formulas",
        action="store_true",
        help="include each result's formula (text, LaTeX, MathML, with numbers) and the glossary (JSON only)",
    )
    p.set_defaults(handler=cmd_predict, parser=p)

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
