"""The exercises blueprint: pages, the JSON API, the stateless answer lock, and the LMS exports validated against their
schemas and read back question by question."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from flask.testing import FlaskClient
from lxml import etree
from markupsafe import escape

from latency_lab.studies import exercises as ex
from latency_lab_web.exercises import export
from latency_lab_web.exercises.views import lock_for

ALL = ",".join(ex.TEMPLATES)


def _href(page: str, pattern: str) -> str:
    m = re.search(r'href="(' + pattern + r'[^"]*)"', page)
    assert m, pattern
    return html_lib.unescape(m.group(1))


def test_index_lists_every_template_and_links_from_the_nav(client: FlaskClient) -> None:
    page = client.get("/exercises/").get_data(as_text=True)
    for t in ex.TEMPLATES.values():
        assert t.title in page
    assert 'href="/exercises/"' in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("template", list(ex.TEMPLATES))
def test_a_problem_page_checks_and_explains(client: FlaskClient, template: str) -> None:
    v = ex.variant(template, "s7")
    page = client.get(f"/exercises/{template}?seed=s7").get_data(as_text=True)
    assert str(escape(v.question)) in page
    assert "Worked solution" not in page  # until asked for or answered
    right = client.get(f"/exercises/{template}?seed=s7&answer={v.answer}").get_data(as_text=True)
    assert "Correct" in right and "Worked solution" in right
    assert str(escape(v.substituted)) in right
    wrong = client.get(f"/exercises/{template}?seed=s7&answer={v.answer * 3 + 7}").get_data(as_text=True)
    assert "Not quite" in wrong
    # the ladder's link opens the teaching panel on exactly the scenario the problem runs
    explain = client.get(_href(right, "/explain"))
    assert explain.status_code == 200
    query = dict(parse_qsl(urlsplit(_href(right, "/explain")).query))
    assert query["network.rtt_ms"] and query["tcp.profile"] == v.scenario["tcp"]["profile"]


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/exercises/nope?seed=1", "template"),
        ("/exercises/loss?seed=a%20b", "seed"),
        ("/exercises/loss?seed=1&answer=abc", "answer"),
        ("/exercises/loss?seed=1&answer=nan", "answer"),
        ("/exercises/set?templates=loss&seeds=1-500", "seeds"),
        (f"/exercises/set?templates={ALL}&seeds=1-60", "seeds"),
        ("/exercises/set?templates=loss&seeds=1-2&lock=xyz", "lock"),
        ("/exercises/set/new?templates=loss&seeds=1-2&passphrase=short", "passphrase"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: FlaskClient, url: str, field: str) -> None:
    r = client.get(url)
    assert r.status_code == 400
    assert f"<strong>{field}</strong>" in r.get_data(as_text=True)


def test_api_variant_set_and_problems(client: FlaskClient) -> None:
    names = [t["name"] for t in client.get("/api/v1/exercises").get_json()["templates"]]
    assert names == list(ex.TEMPLATES)
    v = ex.variant("dns_http", "3")
    doc = client.get(f"/api/v1/exercises/dns_http?seed=3&answer={v.answer}").get_json()
    assert doc["answer"] == pytest.approx(v.answer) and doc["check"]["correct"]
    assert doc["solution"]["substituted"] == v.substituted
    bad = client.get("/api/v1/exercises/dns_http?seed=3&answer=x")
    assert bad.status_code == 422 and bad.content_type == "application/problem+json"
    assert bad.get_json()["errors"][0]["path"] == "answer"
    assert client.get("/api/v1/exercises/nope").get_json()["errors"][0]["path"] == "template"


def test_a_locked_set_hides_its_answers_until_the_key_is_given(client: FlaskClient) -> None:
    made = client.get("/exercises/set/new?templates=loss,stalls&seeds=1-2&passphrase=teach-2026").get_data(as_text=True)
    students = urlsplit(_href(made, r'[^"]*/exercises/set\?[^"]*lock'))
    teacher = urlsplit(_href(made, r'[^"]*/exercises/set\?[^"]*key='))
    sq, tq = dict(parse_qsl(students.query)), dict(parse_qsl(teacher.query))
    assert "key" not in sq and "passphrase" not in sq and "teach-2026" not in students.query
    assert sq["lock"] == lock_for(["loss", "stalls"], "1-2", "teach-2026") == tq["lock"]
    hidden = client.get(f"{students.path}?{students.query}").get_data(as_text=True)
    shown = client.get(f"{teacher.path}?{teacher.query}").get_data(as_text=True)
    v = ex.variant("loss", "1")
    assert "Worked solution" not in hidden and str(escape(v.substituted)) not in hidden
    assert "Worked solution" in shown and str(escape(v.substituted)) in shown
    wrong = client.get(f"{students.path}?{students.query}&key=not-the-key").get_data(as_text=True)
    assert "does not open" in wrong and "Worked solution" not in wrong
    api = client.get(f"/api/v1/exercises/set?{students.query}").get_json()
    assert not api["released"] and all("answer" not in p for p in api["problems"])
    assert client.get(f"/api/v1/exercises/set?{teacher.query}").get_json()["released"]
    for kind in ("qti", "moodle"):
        assert client.get(f"/exercises/set/{kind}.xml?{students.query}").status_code == 403
        assert client.get(f"/exercises/set/{kind}.xml?{teacher.query}").status_code == 200
    key_less = client.get(f"/exercises/set/worksheet?{students.query}").get_data(as_text=True)
    assert "Answer key" not in key_less
    assert "Answer key" in client.get(f"/exercises/set/worksheet?{teacher.query}").get_data(as_text=True)


# --- the exports -------------------------------------------------------------------------------------------

SEEDS = ["1", "2", "ann"]
QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"


@pytest.fixture(scope="module")
def variants() -> list[ex.Variant]:
    return ex.problem_set(list(ex.TEMPLATES), SEEDS)


def _fetch(client: FlaskClient, kind: str) -> bytes:
    r = client.get(f"/exercises/set/{kind}.xml?templates={ALL}&seeds=1,2,ann")
    assert r.status_code == 200 and r.mimetype == "application/xml"
    return bytes(r.data)


def _text(el: etree._Element, path: str) -> str:
    """The text at ``path`` under ``el``; fails the test when the element is missing."""
    text = el.findtext(path)
    assert text is not None, path
    return text


def test_qti_validates_and_reads_back(client: FlaskClient, variants: list[ex.Variant]) -> None:
    data = _fetch(client, "qti")
    assert export.validate("qti", data) == []
    items = list(etree.fromstring(data).iter(QTI + "item"))
    assert len(items) == len(variants)
    for item, v in zip(items, variants, strict=True):
        meta = {_text(f, QTI + "fieldlabel"): _text(f, QTI + "fieldentry") for f in item.iter(QTI + "qtimetadatafield")}
        assert meta["question_type"] == "numerical_question"
        assert item.get("ident") == f"{v.template}-{v.seed}"
        assert str(escape(v.question)) in _text(item, f"{QTI}presentation/{QTI}material/{QTI}mattext")
        assert float(meta["latency_lab_tolerance"]) == pytest.approx(v.tolerance)
        if v.tolerance:
            assert float(_text(item, f".//{QTI}vargte")) == pytest.approx(v.answer - v.tolerance)
            assert float(_text(item, f".//{QTI}varlte")) == pytest.approx(v.answer + v.tolerance)
        else:
            assert float(_text(item, f".//{QTI}varequal")) == v.answer
        assert str(escape(v.substituted)) in _text(item, f".//{QTI}solution//{QTI}mattext")


def test_moodle_validates_and_reads_back(client: FlaskClient, variants: list[ex.Variant]) -> None:
    data = _fetch(client, "moodle")
    assert export.validate("moodle", data) == []
    questions = etree.fromstring(data).findall("question[@type='numerical']")
    assert len(questions) == len(variants)
    for q, v in zip(questions, variants, strict=True):
        assert _text(q, "idnumber") == f"{v.template}-{v.seed}"
        assert str(escape(v.question)) in _text(q, "questiontext/text")
        answer = q.find("answer")
        assert answer is not None and answer.get("fraction") == "100"
        assert float(_text(answer, "text")) == pytest.approx(v.answer)
        assert float(_text(answer, "tolerance")) == pytest.approx(v.tolerance)
        assert str(escape(v.substituted)) in _text(q, "generalfeedback/text")
        assert _text(q, "units/unit/unit_name") == v.unit


@pytest.mark.parametrize("kind", ["qti", "moodle"])
def test_the_schemas_reject_a_broken_export(variants: list[ex.Variant], kind: str) -> None:
    data = export.qti(variants[:2], "t", "i") if kind == "qti" else export.moodle(variants[:2], "t")
    broken = data.replace(b"<varlte", b"<varlte_x").replace(b"</varlte>", b"</varlte_x>")
    broken = broken.replace(b"<tolerance>", b"<tolerance>minus ").replace(b'fraction="100"', b'fraction="200"')
    assert export.validate(kind, broken)
