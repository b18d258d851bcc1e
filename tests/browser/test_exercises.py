"""The exercises in headless Chromium: a student draws and checks a problem with the keyboard; a teacher makes a
locked set, releases it, and prints its worksheet to PDF with the answer key on the last page(s) (issue 27); axe finds
no serious violation on the pages at the three window sizes."""

from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from latency_lab.studies import exercises as ex
from tests.browser.windows import WINDOW_IDS, WINDOWS, axe_violations, use_window


def test_a_student_draws_and_checks_a_problem_with_the_keyboard(page: Page) -> None:
    page.goto("/exercises/")
    seed = page.get_by_label("Seed (student id or number)").nth(list(ex.TEMPLATES).index("slow_start"))
    seed.fill("s1234")
    seed.press("Enter")
    expect(page).to_have_url(re.compile(r"/exercises/slow_start\?seed=s1234$"))
    v = ex.variant("slow_start", "s1234")
    answer = page.get_by_label(re.compile("Your answer"))
    answer.fill(f"{v.answer * 1.5:.1f}")
    answer.press("Enter")
    expect(page.get_by_role("status")).to_have_text(re.compile("Not quite"))
    page.get_by_label(re.compile("Your answer")).fill(f"{v.answer:.1f}")
    page.get_by_label(re.compile("Your answer")).press("Enter")
    expect(page.get_by_role("status")).to_have_text(re.compile("Correct"))
    expect(page.get_by_role("region", name="Worked solution")).to_contain_text(v.substituted)


def _pdf_pages(page: Page) -> list[str]:
    pdf = page.pdf(format="A4", print_background=False)
    return [p.extract_text() or "" for p in PdfReader(io.BytesIO(pdf)).pages]


def test_the_worksheet_prints_with_the_answer_key_last(page: Page) -> None:
    page.goto("/exercises/")
    page.get_by_label("Templates, comma-separated").fill("http_rounds,loss,handshakes")
    page.get_by_label(re.compile("^Seeds")).fill("1-3")
    page.get_by_label(re.compile("^Passphrase")).fill("release-me-42")
    page.get_by_role("button", name="Make the set").click()
    students = page.locator("#students-link").get_attribute("href")
    assert students and "release-me-42" not in students
    page.locator("#teacher-link").click()
    page.get_by_role("link", name=re.compile("Printable worksheet")).click()
    expect(page.get_by_role("heading", name="Answer key")).to_be_visible()
    texts = _pdf_pages(page)
    sheets = [i for i, t in enumerate(texts) if "Worksheet: seed" in t]
    keys = [i for i, t in enumerate(texts) if "Answer key" in t]
    assert len(sheets) == 3 and len(keys) == 1, (sheets, keys)
    assert keys[0] > max(sheets)  # the key starts after every student's page ...
    assert all("Worksheet: seed" not in t for t in texts[keys[0] :])  # ... and runs to the end
    last = ex.variant("handshakes", "3")
    assert f"{ex.fmt(last.answer)}" in "".join(texts[keys[0] :]).replace("\n", " ")
    # the students' worksheet prints no key at all
    page.goto(students)
    page.get_by_role("link", name=re.compile("Printable worksheet")).click()
    expect(page.get_by_role("heading", name="Worksheet: seed 1")).to_be_visible()
    texts = _pdf_pages(page)
    assert texts and not any("Answer key" in t for t in texts)


PAGES = (
    "/exercises/",
    "/exercises/loss?seed=7&answer=100",
    "/exercises/set?templates=stalls,dns_http&seeds=1-2",
    "/exercises/set/worksheet?templates=stalls&seeds=1-2",
)


@pytest.mark.parametrize("window", WINDOWS, ids=WINDOW_IDS)
def test_no_serious_accessibility_violations(page: Page, window: tuple[int, int]) -> None:
    use_window(page, window)
    for path in PAGES:
        page.goto(path)
        found = axe_violations(page)
        assert not found, f"{path}: {found}"
