"""Hostile input to ``judgebox serve``: schema-driven fuzzing with schemathesis, then hand-written malformed
bodies. Whatever a client sends, the server answers 2xx or 4xx with a message, never 5xx, never hangs, and keeps
serving afterwards (verl scores every 5xx as -1, and a crashed server scores a whole training step as -1).

Schemathesis runs stateless tests of every operation in the OpenAPI document (its examples, coverage and
fuzzing phases, valid and invalid data) against a server of this module's own, so a crash cannot take the
shared ``server`` down with it. The schema is built from ``create_app()`` at import time (pytest parametrizes
at collection, before any server runs); ``test_fuzzed_schema_is_the_served_one`` checks that it is exactly
the document the running server serves. (``schemathesis.pytest.from_fixture`` would load it from the server
at run time, but schemathesis 4.32's lazy loader uses ``Function._nodeid``, which pytest 9 removed.)
"""

from __future__ import annotations

import copy
import json
import time

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from conftest import Server
from judgebox.server import create_app

OPENAPI = create_app().openapi()
SCHEMA = schemathesis.openapi.from_dict(OPENAPI)
FUZZ_EXAMPLES = 60  # per operation and phase; the whole module stays well under a minute


def _schema_reaching_the_sandbox() -> schemathesis.BaseSchema:
    """The same operations with ``language`` and ``checker`` narrowed to values the server runs, ``cases``
    required, code and names the judge accepts, and lists kept short. With the served schema (free strings,
    ``cases`` optional) nearly every /judge stops at "unknown language" or "give cases" (422), so the sandbox,
    the checkers and the NDJSON stream would hardly be fuzzed; with this one, most bodies reach them."""
    raw = copy.deepcopy(OPENAPI)
    models = raw["components"]["schemas"]
    for name in ("RunCodeRequest", "JudgeRequest"):
        models[name]["properties"]["language"] = {"type": "string", "enum": ["python", "python3"]}
    models["JudgeRequest"]["properties"]["checker"] = {"type": "string", "enum": ["exact", "lines", "tokens"]}
    models["JudgeRequest"]["properties"]["cases"] = {**models["JudgeRequest"]["properties"]["cases"]["anyOf"][0],
                                                     "maxItems": 8}
    models["JudgeRequest"]["required"] = ["code", "cases"]
    models["JudgeRequest"]["properties"]["code"]["pattern"] = r"\S"
    models["CaseModel"]["properties"]["fn_name"] = {"type": "string", "pattern": r"^[a-z_][a-z0-9_]{0,8}$"}
    models["CaseModel"]["properties"]["assert_code"] = {"type": "string", "pattern": r"\S"}
    models["BatchRequest"]["properties"]["submissions"]["maxItems"] = 4
    models["LimitsModel"]["properties"]["cpu_time"]["maximum"] = 2
    return schemathesis.openapi.from_dict(raw).include(method="POST")


REACHING = _schema_reaching_the_sandbox()


@pytest.fixture(scope="module")
def fuzz_server():
    with Server("--workers", "2") as running:
        yield running
        _assert_alive_and_well(running)


def _assert_alive_and_well(running: Server) -> None:
    """Still up, still judging right, and no request ever answered 5xx (the server's own count)."""
    assert running.process.poll() is None, "the server process died"
    assert httpx.get(running.url + "/v1/ping", timeout=10).json() == "pong"
    body = httpx.post(running.url + "/run_code", json={"code": "print(6 * 7)", "language": "python"},
                      timeout=30).json()
    assert (body["status"], body["run_result"]["stdout"]) == ("Success", "42\n")
    metrics = httpx.get(running.url + "/metrics", timeout=10).text
    server_errors = [line for line in metrics.splitlines()
                     if line.startswith("judgebox_requests_total{") and 'status="5' in line]
    assert not server_errors, server_errors


def test_fuzzed_schema_is_the_served_one(fuzz_server):
    assert httpx.get(fuzz_server.url + "/openapi.json").json() == OPENAPI


@SCHEMA.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
def test_fuzz_every_operation(case, fuzz_server):
    _call_and_check(case, fuzz_server.url)


@REACHING.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
def test_fuzz_past_validation(case, fuzz_server):
    """Bodies with a runnable language: random programs, cases, limits and files reach the sandbox."""
    _call_and_check(case, fuzz_server.url)


def _call_and_check(case: schemathesis.Case, url: str) -> None:
    """No 5xx, documented content types, 2xx bodies that match the schema, and every 4xx says why.

    Not checked: that schema-invalid data is refused (pydantic's lax mode coerces ``false`` to 0 and ``"1"``
    to 1, as SandboxFusion's own pydantic server does), and the schema of 4xx bodies (judge-level input errors
    answer ``{"detail": "<text>"}``, not FastAPI's list of field errors; 401 and 413 are not in the schema)."""
    started = time.monotonic()
    response = case.call(base_url=url, timeout=120)
    assert time.monotonic() - started < 60, "a fuzzed request took over a minute"
    checks = [not_a_server_error, content_type_conformance]
    if response.status_code < 300:
        checks.append(response_schema_conformance)
    case.validate_response(response, checks=checks)
    if response.status_code >= 400:
        assert response.json()["detail"], response.text


def test_fuzzing_left_the_server_well(fuzz_server):
    _assert_alive_and_well(fuzz_server)


# --- hand-written malformed inputs -------------------------------------------------------------------------------

NESTED = 100_000
MALFORMED = {
    "truncated JSON": ("/run_code", b'{"code": "print(1)", "language": '),
    "not JSON": ("/run_code", b"print(1)"),
    "empty body": ("/run_code", b""),
    "JSON array": ("/run_code", b'["print(1)", "python"]'),
    "JSON string": ("/judge", b'"print(1)"'),
    "invalid UTF-8": ("/run_code", b'{"code": "\xff\xfe", "language": "python"}'),
    "code is a number": ("/run_code", b'{"code": 5, "language": "python"}'),
    "run_timeout is text": ("/run_code", b'{"code": "print(1)", "run_timeout": "soon"}'),
    "run_timeout is NaN": ("/run_code", b'{"code": "print(1)", "run_timeout": NaN}'),
    "run_timeout negative": ("/run_code", b'{"code": "print(1)", "run_timeout": -1}'),
    "memory_limit_MB huge int": ("/run_code", b'{"code": "print(1)", "memory_limit_MB": 1' + b"0" * 5000 + b"}"),
    "files is a list": ("/run_code", b'{"code": "print(1)", "files": ["a.txt"]}'),
    "file content not base64": ("/run_code", b'{"code": "print(1)", "files": {"a.txt": "QQ"}}'),
    "lone surrogate in stdin": ("/run_code", b'{"code": "print(1)", "stdin": "\\ud800"}'),
    "lone surrogate in a case": ("/judge", b'{"code": "print(1)", "cases": [{"stdin": "\\udfff"}]}'),
    "lone surrogate in test_cases": ("/judge", b'{"code": "print(1)", "test_cases": '
                                               b'{"inputs": ["\\ud800"], "outputs": ["1"]}}'),
    "judge without cases": ("/judge", b'{"code": "print(1)"}'),
    "judge unknown field": ("/judge", b'{"code": "print(1)", "cases": [], "bogus": 1}'),
    "judge unknown language": ("/judge", b'{"code": "print(1)", "language": "cobol", "cases": [{"stdin": ""}]}'),
    "judge unknown checker": ("/judge", b'{"code": "print(1)", "checker": "vibes", "cases": [{"stdin": ""}]}'),
    "judge cpu_time zero": ("/judge", b'{"code": "print(1)", "cases": [], "limits": {"cpu_time": 0}}'),
    "batch empty": ("/judge/batch", b'{"submissions": []}'),
    "deep nesting in files": ("/run_code", b'{"code": "x", "files": ' + b"[" * NESTED + b"]" * NESTED + b"}"),
    "deep nesting, bare": ("/run_code", b"[" * NESTED + b"]" * NESTED),
    "deep nesting in call args": ("/judge", b'{"code": "x", "cases": [{"kind": "call", "fn_name": "f", "args": '
                                            + b"[" * NESTED + b"]" * NESTED + b"}]}"),
    "deep nesting in test_cases": ("/judge", b'{"code": "x", "test_cases": ' + b'{"a": ' * NESTED + b"1"
                                             + b"}" * NESTED + b"}"),
    "nesting 500 deep in call args and expected value": (
        "/judge", b'{"code": "def f(x): return x", "cases": [{"kind": "call", "fn_name": "f", "args": ['
        + b"[" * 500 + b"]" * 500 + b'], "expected_value": ' + b"[" * 500 + b"]" * 500 + b"}]}"),
    "5 MB code": ("/run_code", json.dumps({"code": "x" * 5_000_000, "language": "python"}).encode()),
    "5 MB code to /judge": ("/judge", json.dumps({"code": "#" * 5_000_000, "cases": [{"stdin": ""}]}).encode()),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_input_gets_4xx_with_a_message(fuzz_server, name):
    path, body = MALFORMED[name]
    response = httpx.post(fuzz_server.url + path, content=body, headers={"content-type": "application/json"},
                          timeout=30)
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:500])
    assert response.json()["detail"], response.text[:500]


def test_batch_answers_a_bad_submission_with_an_error_line(fuzz_server):
    """Inside /judge/batch a submission that fails (here: test data nested 500 deep) is an ``error`` line; the
    stream goes on and the other submissions' lines come."""
    deep = "[" * 500 + "]" * 500
    body = ('{"submissions": [{"code": "def f(x): return x", "cases": [{"kind": "call", "fn_name": "f", "args": ['
            + deep + '], "expected_value": ' + deep + '}]}, '
            '{"code": "print(1)", "cases": [{"expected_output": "1"}]}]}')
    response = httpx.post(fuzz_server.url + "/judge/batch", content=body, headers={"content-type": "application/json"},
                          timeout=60)
    assert response.status_code == 200
    lines = sorted((json.loads(line) for line in response.text.splitlines()), key=lambda line: line["index"])
    assert [line["index"] for line in lines] == [0, 1]
    assert lines[0]["result"] is None and "nested deeper" in lines[0]["error"]
    assert lines[1]["result"]["verdict"] == "AC"


def test_5mb_code_field_is_422(fuzz_server):
    response = httpx.post(fuzz_server.url + "/run_code", json={"code": "x" * 5_000_000, "language": "python"},
                          timeout=30)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "code"]


def test_wrong_method_and_unknown_path(fuzz_server):
    assert httpx.get(fuzz_server.url + "/run_code").status_code == 405
    assert httpx.post(fuzz_server.url + "/no/such/endpoint", json={}).status_code == 404


def test_body_over_the_limit_is_413():
    """With ``--max-body-mb 1``: 2 MB refused with 413, whether the size is declared up front
    (``Content-Length``) or only discovered while the body streams in (chunked); a body under the limit runs."""
    big = json.dumps({"code": "#" * 2_000_000 + "\nprint(1)", "language": "python"}).encode()

    def chunked():
        for start in range(0, len(big), 64 * 1024):
            yield big[start:start + 64 * 1024]

    with Server("--workers", "1", "--max-body-mb", "1") as small:
        declared = httpx.post(small.url + "/run_code", content=big, headers={"content-type": "application/json"},
                              timeout=30)
        assert declared.status_code == 413 and "larger than" in declared.json()["detail"]
        streamed = httpx.post(small.url + "/run_code", content=chunked(),
                              headers={"content-type": "application/json"}, timeout=30)
        assert streamed.status_code == 413 and "larger than" in streamed.json()["detail"]
        ok = httpx.post(small.url + "/run_code", json={"code": "#" * 500_000 + "\nprint(1)"}, timeout=30)
        assert ok.status_code == 200 and ok.json()["run_result"]["stdout"] == "1\n"
