"""The API against its own OpenAPI document: schemathesis, in process, deterministic.

Schemathesis reads ``/api/openapi.json`` from the app and generates requests for every operation:
valid ones from the schemas and invalid ones (negative mode: wrong types, out-of-range numbers,
unknown enum values, broken bodies), plus its coverage phase's boundary cases. For each answer it
checks: no 5xx; the status, the content type, the headers and the body are as documented; and a
request that breaks the schema is refused with a 4xx (negative data rejection).

Not checked: that every schema-valid request is accepted (positive data acceptance). The schemas
cannot say the scenario's cross-field rules (give object_bytes *or* object_count with
object_size_bytes; no protocol twice; the page's segment cap; the work limits), so some valid-looking
requests are rightly answered 422.

Deterministic: fixed hypothesis settings with ``derandomize=True`` and schemathesis' deterministic
generation, no example database. The last test checks that at least :data:`MIN_CASES` requests ran.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi import checks as openapi_checks

from app import create_app

#: Examples hypothesis generates per operation and generation mode (the coverage phase adds its own).
EXAMPLES = 60
#: The least number of requests the run must make in all.
MIN_CASES = 1000

app = create_app({"TESTING": True})
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
schema.config.generation.update(max_examples=EXAMPLES, deterministic=True)
# Refusals the API documents: bad JSON 400, unknown preset or protocol 404, body too large 413, query too
# long 414, wrong media type 415, invalid or over a limit 422.
schema.config.checks.negative_data_rejection.expected_statuses = ["400", "404", "405", "413", "414", "415", "422"]

CHECKS = [
    not_a_server_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.response_schema_conformance,
    openapi_checks.negative_data_rejection,
]

CASES: Counter[str] = Counter()
STATUSES: Counter[int] = Counter()
SECONDS: dict[str, float] = {}


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_matches_its_openapi_document(case: Any) -> None:
    t0 = time.perf_counter()
    response = case.call_and_validate(checks=CHECKS)
    label = case.operation.label
    CASES[label] += 1
    STATUSES[response.status_code] += 1
    SECONDS[label] = SECONDS.get(label, 0.0) + time.perf_counter() - t0


def test_enough_cases_ran(capsys: pytest.CaptureFixture[str]) -> None:
    """At least MIN_CASES generated requests in all (this test runs after the ones above, in file order)."""
    total = sum(CASES.values())
    if total == 0:
        pytest.skip("the schemathesis tests did not run (deselected)")
    with capsys.disabled():
        print(f"\nschemathesis: {total} requests; statuses {dict(sorted(STATUSES.items()))}")
        for label, n in sorted(CASES.items()):
            print(f"  {label}: {n} requests, {SECONDS[label]:.1f} s")
    assert total >= MIN_CASES
