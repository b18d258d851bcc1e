"""Content and caching: what the page puts on the wire (seed 004).

Seed 004 measures two visits: the first, which fetches the HTML and every image (43 GETs for the
Microscape page), and a revalidation, where every object is asked for with a conditional GET and
answered without a body. It also asks what content changes would save: deflate-compressed HTML
(HTTP/1.1 transport compression), style sheets (CSS1) that draw what small images of text used to,
and PNG in place of GIF. The seed's text stops before its figures for these, so here they are plain
transformations of the page, each a what-if parameter:

- ``page.revalidate``: every response is a header alone (a 304 to a conditional GET).
- ``http.html_compression_ratio``: the HTML's bytes on the wire are ``ceil(html * ratio)``.
- ``page.css_replaces_images``: the N smallest embedded images are no longer fetched; a style sheet of
  ``page.css_bytes`` (if any) is fetched first among the embedded objects.
- ``page.image_size_ratio``: every embedded image's size is multiplied (e.g. PNG for GIF).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache


def compressed_bytes(nbytes: int, ratio: float) -> int:
    """Bytes of a compressed body (bytes): ``ceil(n * ratio)``; a ratio of 1 leaves it as it is. Seed 004."""
    return nbytes if ratio >= 1 else math.ceil(nbytes * ratio)


def effective_page(
    html_bytes: int,
    object_bytes: Sequence[int],
    *,
    revalidate: bool = False,
    html_compression_ratio: float = 1.0,
    css_replaces_images: int = 0,
    css_bytes: int = 0,
    image_size_ratio: float = 1.0,
) -> tuple[int, list[int]]:
    """The HTML's and the embedded objects' body bytes as transferred (bytes), in request order.

    Images replaced by style sheet rules are the smallest ones (small images of text and rules,
    seed 004, CSS1); the remaining keep their order. A revalidation transfers no bodies at all.

    Kept for the last pages met (:func:`_effective`): validating a scenario and pricing its work each ask it, so a
    sweep asked it twice a point, for the same page, and a page of 1,000 objects whose images style sheets replace
    costs a sort of them each time (0.5 ms; a refusal of 205 points of one took 0.25 s, bench/worst_case.py
    2026-11-29). A new list each call: the caller may change it.
    """
    html, objects = _effective(
        html_bytes,
        tuple(object_bytes),
        revalidate,
        html_compression_ratio,
        css_replaces_images,
        css_bytes,
        image_size_ratio,
    )
    return html, list(objects)


@lru_cache(maxsize=32)
def _effective(
    html_bytes: int,
    object_bytes: tuple[int, ...],
    revalidate: bool,
    html_compression_ratio: float,
    css_replaces_images: int,
    css_bytes: int,
    image_size_ratio: float,
) -> tuple[int, tuple[int, ...]]:
    """:func:`effective_page`, made."""
    images = list(object_bytes)
    if css_replaces_images >= len(images):
        images = []
    elif css_replaces_images > 0:
        # the smallest first, ties in request order (a stable sort of the indices by size)
        order = sorted(range(len(images)), key=images.__getitem__)
        images = [images[i] for i in sorted(order[css_replaces_images:])]
    if image_size_ratio != 1.0:
        images = [max(1, round(size * image_size_ratio)) if size else 0 for size in images]
    objects = ([css_bytes] if css_bytes > 0 else []) + images
    html = compressed_bytes(html_bytes, html_compression_ratio)
    if revalidate:
        return 0, (0,) * len(objects)
    return html, tuple(objects)
