"""DNS: the client looks up the server's name before its first connection.

A browser resolves a host name once and caches the answer; a page's first connection to a host whose
address is not cached waits for a lookup. The model takes the common case: the stub resolver asks the
recursive resolver (the ISP's or a public one) which has the answer in its cache, one round trip on
the client's access path (RFC 1034, 5.3.1; RFC 1035, 7). The lookup crosses a different path from the
client-server one, so its time is a parameter of its own, ``T_dns`` = ``dns.resolver_rtt_ms``, not a
round trip of ``RTT``; a resolver without the answer would add its own round trips to the authoritative
servers, left out. Later connections of the session use the cached address.
"""

from __future__ import annotations

#: The two modes of ``dns.lookup``.
LOOKUPS = ("cached", "resolver")


def lookup_ms(lookup: str, resolver_rtt_ms: float) -> float:
    """Time before the session's first SYN can leave (ms): ``T_dns`` for a resolver lookup, 0 when cached.

    ``T_dns`` is one round trip client - recursive resolver plus the resolver's answer time (the query and
    answer, about 40 and 60 bytes, are too small to count in their serialization).
    """
    return resolver_rtt_ms if lookup == "resolver" else 0.0
