"""The output document as JSON text, fast: one writer for the command line and the API.

Pure: a document in, its text out.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core


def dumps(value: Any, indent: int | None = None) -> str:
    """``value`` (an output document: dicts, lists, strings, numbers, booleans, None) as JSON text: compact on one line,
    or with ``indent``, the same text as ``json.dumps(value, indent=indent, allow_nan=False)`` up to how a float is
    spelt (``1e-7`` for ``1e-07``, ``0.000015`` for ``1.5e-05``).

    Written by ``pydantic_core.to_json`` (pydantic's own Rust serializer, installed with it): a validation-grid
    scenario's 40 KB document in about a third of ``json.dumps``'s time (README, "Speed"). Every float is written as the
    shortest text that reads back as the same double, so ``json.loads`` gives back ``value`` exactly (same keys in the
    same order, same numbers bit for bit, ints staying ints); non-ASCII characters are escaped as ``json.dumps`` does.
    Anything else goes to ``json.dumps(value, allow_nan=False)``, which writes it as before or refuses it as before
    (ValueError, TypeError): a document holding NaN or infinity (not JSON; so also one with ``NaN`` or ``Infinity``
    in a string, then written the same) or one ``to_json`` cannot write (a lone surrogate in a string).
    """
    text: bytes | None
    try:
        text = pydantic_core.to_json(value, indent=indent, ensure_ascii=True, inf_nan_mode="constants")
    except pydantic_core.PydanticSerializationError:
        text = None
    if text is None or b"NaN" in text or b"Infinity" in text:
        separators = (",", ":") if indent is None else None
        return json.dumps(value, indent=indent, allow_nan=False, separators=separators)
    return text.decode("ascii")
