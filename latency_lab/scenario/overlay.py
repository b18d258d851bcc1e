"""The one home of the rules that combine a base scenario (a preset's document) with given fields.

The calculator's form and address, the API's query and body, the sweep and the command line's ``--preset``
all build their scenario with :func:`overlay`, so one query means one scenario everywhere
(``tests/latency_lab/scenario/test_overlay.py`` checks the four front ends agree).

The rules, beyond "nested objects merge, anything else (lists too) replaces" (:func:`deep_merge`), make a given
field take effect where the base gives the same quantity in another form:

- a given ``page.object_bytes`` replaces the base's ``page.object_count`` and ``page.object_size_bytes``;
- a given ``page.object_count`` or ``page.object_size_bytes`` replaces the base's objects (``page.object_bytes``,
  or the default page's), the one of the pair not given taken from them: their number; their mean size, rounded
  (their size when they are all one size; the default page's object size when there are none);
- a given ``network.rtt_ms`` replaces the base's one-way delays (``network.uplink_delay_ms`` and
  ``network.downlink_delay_ms``), unless one of those is given too.

Pure and iterative: documents of any depth merge without recursion (a caller's depth check,
:func:`latency_lab.scenario.json_input.check_depth`, refuses the absurd ones).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from latency_lab.scenario.schema import DEFAULT_OBJECT_BYTES, Page

__all__ = ["copy_json", "deep_merge", "mean_size", "overlay"]


#: The values JSON parses to that cannot change in place: shared by a copy, not copied (``copy.deepcopy`` of each of a
#: 663-object page's list items made a calculator page's canonical address cost 0.7 s, issue 26).
_IMMUTABLE = (str, int, float, bool, type(None))


def copy_json(value: Any) -> Any:
    """A deep copy of a parsed JSON document (dicts and lists copied, without recursion: any depth)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]  # (where the copy goes, its key there, the original)
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, dict):
            new: dict[Any, Any] = dict.fromkeys(item)
            parent[key] = new
            stack.extend((new, k, v) for k, v in item.items())
        elif isinstance(item, list):
            if all(type(v) in _IMMUTABLE for v in item):  # a list of numbers: one copy, no item pushed
                parent[key] = list(item)
                continue
            items: list[Any] = [None] * len(item)
            parent[key] = items
            stack.extend((items, i, v) for i, v in enumerate(item))
        elif type(item) in _IMMUTABLE:
            parent[key] = item
        else:
            parent[key] = copy.deepcopy(item)
    return root[0]


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``: nested dicts merge, anything else (lists too) replaces.

    Neither is changed; without recursion, so a document of any depth merges."""
    out: dict[str, Any] = copy_json(dict(base))
    stack: list[tuple[dict[str, Any], Mapping[str, Any]]] = [(out, override)]
    while stack:
        target, over = stack.pop()
        for key, value in over.items():
            here = target.get(key)
            if isinstance(value, dict) and isinstance(here, dict):
                stack.append((here, value))  # here is already a copy: merged into in place
            else:
                target[key] = copy_json(value)
    return out


def _base_sizes(base: Mapping[str, Any], page: Mapping[str, Any]) -> list[Any] | None:
    """The base page's object sizes: as its document lists them, else as the schema fills them in (defaults).

    Only the base's page is validated (the sizes are the page's alone): validating the whole base scenario here cost
    every calculator and API request a second validation of it (issue 26)."""
    sizes = page.get("object_bytes")
    if isinstance(sizes, list):
        return sizes
    try:
        return Page.model_validate(base.get("page", {})).sizes()
    except ValueError:  # an invalid base: its own problems are reported when the result is validated
        return None


def _page_rules(
    base: Mapping[str, Any], page: dict[str, Any], gpage: Mapping[str, Any], notes: list[str] | None
) -> None:
    """The page rules of :func:`overlay`, applied to ``page`` (the copy of the base's page) in place."""
    if "object_bytes" in gpage:
        page.pop("object_count", None)
        page.pop("object_size_bytes", None)
        return
    if "object_count" not in gpage and "object_size_bytes" not in gpage:
        return
    sizes = _base_sizes(base, page)
    page.pop("object_bytes", None)
    if sizes is None:
        return
    if "object_count" not in gpage and page.get("object_count") is None:
        page["object_count"] = len(sizes)
    if "object_size_bytes" not in gpage and page.get("object_size_bytes") is None:
        page["object_size_bytes"] = mean_size(sizes)
        note = _size_note(sizes, page["object_size_bytes"])
        if note and notes is not None and gpage.get("object_count") != 0:
            notes.append(note)


def _size_note(sizes: list[Any], size: int) -> str:
    """What a reader is told when a given count took a size that is not the page's one object size."""
    if not sizes:
        return f"The page had no embedded objects: each of them is {size:,} bytes (the default size)."
    if len({repr(x) for x in sizes}) == 1:
        return ""
    numbers = [x for x in sizes if isinstance(x, int | float) and not isinstance(x, bool)]
    if not numbers:
        return ""
    return (
        f"The page's {len(sizes)} objects differ in size ({min(numbers):,} to {max(numbers):,} bytes): each object "
        f"now has their mean size, {size:,} bytes. Give \u201cObject size\u201d to choose another."
    )


def mean_size(sizes: list[Any]) -> int:
    """The size (bytes) a page's objects take when given as a count: their mean, rounded (their size when they
    are all one size); the default page's object size for a page without objects."""
    numbers = [x for x in sizes if isinstance(x, int | float) and not isinstance(x, bool)]
    if not numbers:
        return DEFAULT_OBJECT_BYTES
    return round(sum(numbers) / len(numbers))


def overlay(base: Mapping[str, Any] | None, given: Mapping[str, Any], notes: list[str] | None = None) -> dict[str, Any]:
    """``given`` on top of ``base`` (scenario documents), a given field replacing the base's other form of it.

    Where a rule took a value the reader may not expect (a mean object size), a sentence saying so is added to
    ``notes`` if given (the calculator shows it beside the page's fields). Neither document is changed. Without a base (``None``), the rules apply against the defaults (an empty document).
    """
    if base is None:
        base = {}
    doc: dict[str, Any] = copy_json(dict(base))
    gpage = given.get("page")
    if isinstance(gpage, dict):
        page = doc.setdefault("page", {})
        if isinstance(page, dict):
            _page_rules(base, page, gpage, notes)
    network = doc.get("network")
    gnet = given.get("network")
    if isinstance(gnet, dict) and isinstance(network, dict) and "rtt_ms" in gnet:
        if "uplink_delay_ms" not in gnet and "downlink_delay_ms" not in gnet:
            network.pop("uplink_delay_ms", None)
            network.pop("downlink_delay_ms", None)
    return deep_merge(doc, given)
