"""A bounded cache of API answers, keyed on the full validated request.

The model is a pure function: the same validated scenario (every default filled in) and the same
options always give the same document, so an answer can be reused. The key is the endpoint, the
output format and options, and the validated request as JSON: two requests that validate to the
same scenario share an entry; anything that changes the answer changes the key. Entries are the
encoded response bodies, least recently used first out, the total held under a byte budget
(``API_CACHE_BYTES``, 0 turns the cache off); answers larger than ``API_CACHE_MAX_ENTRY_BYTES`` are
not kept. Each answer says whether it came from the cache in a ``Cache-Status`` header (RFC 9211):
``latency-lab; hit`` or ``latency-lab; fwd=miss``. The cache is per process (each gunicorn worker
has its own).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entry:
    body: bytes
    mimetype: str


class ResponseCache:
    """Least-recently-used answers under a byte budget; safe to share between threads."""

    def __init__(self, max_bytes: int, max_entry_bytes: int) -> None:
        self.max_bytes = max(0, max_bytes)
        self.max_entry_bytes = max(0, max_entry_bytes)
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _size(key: str, entry: Entry) -> int:
        return len(key) + len(entry.body) + 100

    @property
    def size(self) -> int:
        """Bytes held (keys, bodies and a little per entry)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Entry | None:
        """The entry for ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry

    def put(self, key: str, entry: Entry) -> bool:
        """Keep ``entry`` unless it is over the entry size or the cache is off; returns whether it was kept."""
        size = self._size(key, entry)
        if self.max_bytes == 0 or len(entry.body) > self.max_entry_bytes or size > self.max_bytes:
            return False
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= self._size(key, old)
            self._entries[key] = entry
            self._bytes += size
            while self._bytes > self.max_bytes:
                k, e = self._entries.popitem(last=False)
                self._bytes -= self._size(k, e)
        return True
