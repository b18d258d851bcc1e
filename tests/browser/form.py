"""The calculator's form as the browser tests use it: a field by its query parameter, and typing into it."""

from __future__ import annotations

from playwright.sync_api import Locator, Page


def field(page: Page, name: str) -> Locator:
    """A scenario field by its query parameter, ``network.rtt_ms`` (labels: test_every_field_has_a_label)."""
    return page.locator(f"form [name='{name}']:not([type=hidden])")


def change(page: Page, name: str, value: str) -> None:
    """Type a value into a field and leave it, as a person would."""
    box = field(page, name)
    box.fill(value)
    box.press("Tab")
