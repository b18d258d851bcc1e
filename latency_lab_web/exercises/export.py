"""A problem set as files a learning management system imports: IMS QTI 1.2 and Moodle XML.

- :func:`qti` writes IMS Question & Test Interoperability 1.2 (``questestinterop``, namespace
  ``http://www.imsglobal.org/xsd/ims_qtiasiv1p2``), the version Canvas and Blackboard import: one ``item`` per
  variant, a numeric fill-in (``response_str`` with ``render_fib fibtype="Decimal"``), scored 100 when the answer is
  within the tolerance (``vargte``/``varlte`` on the answer less and plus the tolerance, or ``varequal`` for an
  exact answer), Canvas's ``question_type`` ``numerical_question`` in the item's metadata, and the worked solution
  as the item's ``solution`` feedback.
- :func:`moodle` writes Moodle XML (``quiz``): one ``numerical`` question per variant with its ``answer`` at
  fraction 100 and its ``tolerance`` (Moodle's nominal tolerance: accepted within answer ± tolerance), the worked
  solution as ``generalfeedback``.

Both are checked against the schemas in ``latency_lab_web/exercises/schemas/`` (:data:`SCHEMAS`; tests/latency_lab_web/test_exercises.py
validates every export and reads every question, answer and tolerance back).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lxml import etree

from latency_lab.studies.exercises import Variant, fmt

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
#: The schema each export is validated against (see schemas/README.md for where each comes from).
SCHEMAS = {"qti": SCHEMA_DIR / "qti12_numeric.xsd", "moodle": SCHEMA_DIR / "moodle_numerical.xsd"}


def item_ident(v: Variant) -> str:
    """An identifier for a variant, safe as an XML ident: template and seed."""
    return f"{v.template}-{v.seed}"


def problem_text(v: Variant) -> str:
    """The problem as the student reads it: the question, the assumptions, the unit and tolerance."""
    parts = [v.question, "Assumptions: " + " ".join(v.assumptions)]
    parts.append(f"Answer in {v.unit} (accepted {v.tolerance_text}).")
    return "\n\n".join(parts)


def solution_text(v: Variant) -> str:
    """The worked solution: the formula, the numbers substituted, the steps and the model's result."""
    lines = [
        f"Answer: {fmt(v.answer)} {v.unit}",
        v.formula,
        v.substituted,
        *(f"{i}. {s}" for i, s in enumerate(v.steps, 1)),
        f"Source: {v.citation}",
    ]
    return "\n".join(lines)


def _html(text: str) -> str:
    """Plain text as HTML paragraphs (escaped), for the LMS's rich-text fields."""
    from markupsafe import escape

    return "".join(f"<p>{escape(p).replace(chr(10), '<br>')}</p>" for p in text.split("\n\n"))


def _number(x: float) -> str:
    return repr(round(float(x), 6))


def qti(variants: Sequence[Variant], title: str, ident: str) -> bytes:
    """The variants as one QTI 1.2 assessment (UTF-8 XML)."""
    q = f"{{{QTI_NS}}}"
    nsmap: Any = {None: QTI_NS, "xsi": XSI_NS}  # None: the default namespace (lxml's way; its stubs want str keys)
    root = etree.Element(q + "questestinterop", nsmap=nsmap)
    root.set(f"{{{XSI_NS}}}schemaLocation", f"{QTI_NS} http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd")
    assessment = etree.SubElement(root, q + "assessment", ident=ident, title=title)
    section = etree.SubElement(assessment, q + "section", ident="root_section")
    for n, v in enumerate(variants, 1):
        item = etree.SubElement(section, q + "item", ident=item_ident(v), title=f"{n}. {v.title} (seed {v.seed})")
        meta = etree.SubElement(etree.SubElement(item, q + "itemmetadata"), q + "qtimetadata")
        for label, entry in (
            ("question_type", "numerical_question"),
            ("points_possible", "1"),
            ("latency_lab_template", v.template),
            ("latency_lab_seed", v.seed),
            ("latency_lab_unit", v.unit),
            ("latency_lab_tolerance", _number(v.tolerance)),
        ):
            field = etree.SubElement(meta, q + "qtimetadatafield")
            etree.SubElement(field, q + "fieldlabel").text = label
            etree.SubElement(field, q + "fieldentry").text = entry
        presentation = etree.SubElement(item, q + "presentation")
        material = etree.SubElement(presentation, q + "material")
        etree.SubElement(material, q + "mattext", texttype="text/html").text = _html(problem_text(v))
        response = etree.SubElement(presentation, q + "response_str", ident="response1", rcardinality="Single")
        fib = etree.SubElement(response, q + "render_fib", fibtype="Decimal")
        etree.SubElement(fib, q + "response_label", ident="answer1")
        proc = etree.SubElement(item, q + "resprocessing")
        outcomes = etree.SubElement(proc, q + "outcomes")
        etree.SubElement(outcomes, q + "decvar", maxvalue="100", minvalue="0", varname="SCORE", vartype="Decimal")
        cond = etree.SubElement(proc, q + "respcondition", attrib={"continue": "No"})
        var = etree.SubElement(cond, q + "conditionvar")
        if v.tolerance == 0:
            etree.SubElement(var, q + "varequal", respident="response1").text = _number(v.answer)
        else:
            both = etree.SubElement(var, q + "and")
            etree.SubElement(both, q + "vargte", respident="response1").text = _number(v.answer - v.tolerance)
            etree.SubElement(both, q + "varlte", respident="response1").text = _number(v.answer + v.tolerance)
        etree.SubElement(cond, q + "setvar", action="Set", varname="SCORE").text = "100"
        feedback = etree.SubElement(item, q + "itemfeedback", ident="general_fb")
        sol = etree.SubElement(etree.SubElement(feedback, q + "solution"), q + "solutionmaterial")
        etree.SubElement(etree.SubElement(sol, q + "material"), q + "mattext", texttype="text/html").text = _html(
            solution_text(v)
        )
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def moodle(variants: Sequence[Variant], title: str) -> bytes:
    """The variants as Moodle XML: a category, then one numerical question each (UTF-8 XML)."""
    quiz = etree.Element("quiz")
    category = etree.SubElement(quiz, "question", type="category")
    etree.SubElement(etree.SubElement(category, "category"), "text").text = f"$course$/latency-lab/{title}"
    for n, v in enumerate(variants, 1):
        q = etree.SubElement(quiz, "question", type="numerical")
        etree.SubElement(etree.SubElement(q, "name"), "text").text = f"{n}. {v.title} ({item_ident(v)})"
        qt = etree.SubElement(q, "questiontext", format="html")
        etree.SubElement(qt, "text").text = etree.CDATA(_html(problem_text(v)))
        gf = etree.SubElement(q, "generalfeedback", format="html")
        etree.SubElement(gf, "text").text = etree.CDATA(_html(solution_text(v)))
        etree.SubElement(q, "defaultgrade").text = "1"
        etree.SubElement(q, "penalty").text = "0.1"
        etree.SubElement(q, "hidden").text = "0"
        etree.SubElement(q, "idnumber").text = item_ident(v)
        answer = etree.SubElement(q, "answer", fraction="100", format="moodle_auto_format")
        etree.SubElement(answer, "text").text = _number(v.answer)
        etree.SubElement(answer, "tolerance").text = _number(v.tolerance)
        fb = etree.SubElement(answer, "feedback", format="html")
        etree.SubElement(fb, "text").text = f"Correct: {fmt(v.answer)} {v.unit}."
        units = etree.SubElement(q, "units")
        unit = etree.SubElement(units, "unit")
        etree.SubElement(unit, "multiplier").text = "1"
        etree.SubElement(unit, "unit_name").text = v.unit
        etree.SubElement(q, "unitgradingtype").text = "0"
        etree.SubElement(q, "unitpenalty").text = "0.1"
        etree.SubElement(q, "showunits").text = "3"
        etree.SubElement(q, "unitsleft").text = "0"
    return bytes(etree.tostring(quiz, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def validate(kind: str, data: bytes) -> list[str]:
    """The schema's complaints about an export (``kind``: ``qti`` or ``moodle``); empty when it validates."""
    schema = etree.XMLSchema(etree.parse(str(SCHEMAS[kind])))
    doc = etree.fromstring(data, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    if schema.validate(doc):
        return []
    return str(schema.error_log).splitlines()
