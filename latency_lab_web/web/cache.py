"""The app's one in-memory cache: least recently used values under a byte budget.

:class:`ByteLRU` keeps values by string key, least recently used first out, the total size held under a
byte budget (0 turns the cache off); a value larger than the entry limit is not kept. A value's size is
what the cache's ``size_of`` says (the API's answers and the calculator's results and sweeps are each
kept as one ``bytes`` object: its length; see latency_lab_web/calculator/views.py), plus the key's length and
:data:`ENTRY_OVERHEAD` for the entry itself. Every cache is per process (each gunicorn worker has its
own), so a worker holds at most the sum of the budgets (each in ``create_app``'s config:
``API_CACHE_BYTES``, ``PAGE_CACHE_BYTES``, ``SWEEP_CACHE_BYTES``), besides the compressed static files
(about 1.3 MB: latency_lab_web/web/assets.py).

:class:`ResponseCache` is the API's answers cache. The model is a pure function: the same validated
scenario (every default filled in) and the same options always give the same document, so an answer
can be reused. The key is the endpoint, the output format and options, and the validated request as
JSON: two requests that validate to the same scenario share an entry; anything that changes the answer
changes the key. Entries are the encoded response bodies under ``API_CACHE_BYTES``; answers larger than
``API_CACHE_MAX_ENTRY_BYTES`` are not kept. Each answer says whether it came from the cache in a
``Cache-Status`` header (RFC 9211): ``latency-lab; hit`` or ``latency-lab; fwd=miss``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")

#: Bytes counted for each entry besides its key and value: the ordered dict's slot and link, the
#: value's own small objects (a tuple, a dataclass). An estimate; it only matters for tiny values.
ENTRY_OVERHEAD = 100


class ByteLRU(Generic[V]):
    """Least-recently-used values under a byte budget; safe to share between threads."""

    def __init__(self, max_bytes: int, max_entry_bytes: int, size_of: Callable[[V], int]) -> None:
        self.max_bytes = max(0, max_bytes)
        self.max_entry_bytes = max(0, max_entry_bytes)
        self._size_of = size_of
        self._entries: OrderedDict[str, tuple[V, int]] = OrderedDict()  # key -> (value, bytes counted)
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def size(self) -> int:
        """Bytes held (keys, values and :data:`ENTRY_OVERHEAD` per entry)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> V | None:
        """The value for ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            held = self._entries.get(key)
            if held is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return held[0]

    def put(self, key: str, value: V) -> bool:
        """Keep ``value`` unless it is over the entry limit or the budget, or the cache is off; returns whether
        it was kept. Least recently used entries make room for it."""
        value_bytes = self._size_of(value)
        size = len(key) + value_bytes + ENTRY_OVERHEAD
        if self.max_bytes == 0 or value_bytes > self.max_entry_bytes or size > self.max_bytes:
            return False
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, freed) = self._entries.popitem(last=False)
                self._bytes -= freed
        return True


@dataclass(frozen=True, slots=True)
class Entry:
    body: bytes
    mimetype: str


def _body_bytes(entry: Entry) -> int:
    return len(entry.body)


class ResponseCache(ByteLRU[Entry]):
    """The API's answers (encoded bodies) under a byte budget; a body over ``max_entry_bytes`` is not kept."""

    def __init__(self, max_bytes: int, max_entry_bytes: int) -> None:
        super().__init__(max_bytes, max_entry_bytes, _body_bytes)
