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

import base64
import concurrent.futures
import copy
import json
import time

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from judgebox.server import create_app
from judgebox.verl import parity
from support.server import Server

OPENAPI = create_app().openapi()
# /run_jupyter starts a Jupyter kernel in the sandbox for each valid body (seconds each: a minute for a few
# examples of each phase): its malformed bodies are in MALFORMED below, and tests/server/test_server_jupyter.py
# sends it cells that attack the sandbox
JUPYTER = "/run_jupyter"
# The dataset API's operations: fewer examples each (60 took 219 s for the six on this 2-core machine; a
# shipped dataset's prompts are a large response to check against the schema)
DATASET_API = ["/list_datasets", "/list_ids", "/get_prompts", "/get_prompt_by_id", "/submit", "/get_metrics"]
SCHEMA = schemathesis.openapi.from_dict(OPENAPI).exclude(path=[JUPYTER, *DATASET_API])
DATASET_SCHEMA = schemathesis.openapi.from_dict(OPENAPI).include(path=DATASET_API)
FUZZ_EXAMPLES = 60  # per operation and phase
DATASET_EXAMPLES = 15


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
    return schemathesis.openapi.from_dict(raw).include(method="POST").exclude(path=[JUPYTER, *DATASET_API])


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


@pytest.mark.slow  # about 10 s in all on this busy 2-core machine
def test_fuzzed_schema_is_the_served_one(fuzz_server):
    assert httpx.get(fuzz_server.url + "/openapi.json").json() == OPENAPI


@pytest.mark.slow  # about 88 s in all on this busy 2-core machine
@SCHEMA.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
def test_fuzz_every_operation(case, fuzz_server):
    _call_and_check(case, fuzz_server.url)


@pytest.mark.slow  # about 53 s in all on this busy 2-core machine
@REACHING.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
def test_fuzz_past_validation(case, fuzz_server):
    """Bodies with a runnable language: random programs, cases, limits and files reach the sandbox."""
    _call_and_check(case, fuzz_server.url)


@pytest.mark.slow  # the dataset API's six operations
@DATASET_SCHEMA.parametrize()
@settings(max_examples=DATASET_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
def test_fuzz_the_dataset_api(case, fuzz_server):
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
    "jupyter cells not a list": (JUPYTER, b'{"cells": "print(1)"}'),
    "jupyter cell a number": (JUPYTER, b'{"cells": [1]}'),
    "jupyter unknown field": (JUPYTER, b'{"cells": ["1"], "bogus": 1}'),
    "jupyter unknown kernel": (JUPYTER, b'{"cells": ["1"], "kernel": "julia"}'),
    "jupyter total_timeout NaN": (JUPYTER, b'{"cells": ["1"], "total_timeout": NaN}'),
    "jupyter cell_timeout negative": (JUPYTER, b'{"cells": ["1"], "cell_timeout": -1}'),
    "jupyter files is a list": (JUPYTER, b'{"cells": ["1"], "files": ["a.txt"]}'),
    "jupyter deep nesting": (JUPYTER, b'{"cells": ' + b"[" * NESTED + b"]" * NESTED + b"}"),
    "jupyter lone surrogate in a cell": (JUPYTER, b'{"cells": ["\\ud800"]}'),
    "5 MB code to /judge": ("/judge", json.dumps({"code": "#" * 5_000_000, "cases": [{"stdin": ""}]}).encode()),
}


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
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


@pytest.mark.slow  # about 37 s in all on this busy 2-core machine
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


# the /run_code path (``judgebox/judging/run_code.py``): ``Judge.run_code`` (verl's parity
# presets, Ray nodes) and ``judgebox serve``'s /run_code through ``Judge.run_code_async`` and admission. A
# request the API accepts must run; a refused or invalid one is an answer, never an exception; a wrong
# program never reads as right.
#
# Real sandboxes, a real server on loopback.

PRINTS_ONE = [("python", "print(1)"), ("c", '#include <stdio.h>\nint main(){puts("1");}')]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture(scope="module")
def server():
    with Server("--workers", "2") as running:
        running.wait_for_self_tests()
        yield running


def _status(result) -> str:
    return result.error if result.error else result.response["status"]


# -- limits at the ends of what the request allows ---------------------------------------------------------


@pytest.mark.parametrize("language, code", PRINTS_ONE)
def test_the_longest_timeouts_a_request_allows_run(judge, language, code):
    """Broke (fixed): run_timeout 3600 with compile_timeout 3600 (both the schema's maximum) made a backstop of
    7201 s, past Limits' 7200: "API Call Failed: Unexpected Error: InvalidLimits" (verl: -1) for a program
    that prints the right answer; a compiled language's build, 10802 s. run_code_limits and Programs.run_once
    cap them at 7200."""
    [result] = judge.run_code([{"code": code, "language": language, "run_timeout": 3600, "compile_timeout": 3600}])
    assert result.error is None, result.error
    assert result.response["status"] == "Success" and result.response["run_result"]["stdout"] == "1\n"


@pytest.mark.slow  # about 42 s in all on this busy 2-core machine
@pytest.mark.parametrize("language, code", PRINTS_ONE)
def test_the_longest_timeouts_on_the_server(server, language, code):
    """Broke (fixed), as above; and a compiled language's build limits were 3 * compile_timeout + 2 s of wall
    time (10802 s past Limits' 7200 for compile_timeout 3600): Programs.run_once caps them too."""
    reply = httpx.post(server.url + "/run_code", json={"code": code, "language": language,
                                                       "run_timeout": 3600, "compile_timeout": 3600}, timeout=120)
    assert reply.status_code == 200 and reply.json()["status"] == "Success", reply.text
    assert reply.json()["run_result"]["stdout"] == "1\n"


@pytest.mark.parametrize("memory", [-1, 0, 16, 65536])
def test_memory_limits_at_their_ends_run(judge, memory):
    """Held: -1 and 0 are the server's default; 16 is raised to the floor; 65536 is the ceiling."""
    [result] = judge.run_code([{"code": "print(1)", "language": "python", "memory_limit_MB": memory}])
    assert _status(result) == "Success"


def test_the_shortest_run_timeout_runs_and_zero_is_an_invalid_request(judge):
    """Held: run_timeout 0.001 runs (a print fits, or it is a TLE, never an error); 0 is below the schema's
    floor, an invalid request (verl's api_error), not an exception."""
    fast, zero = judge.run_code([{"code": "print(1)", "language": "python", "run_timeout": 0.001},
                                 {"code": "print(1)", "language": "python", "run_timeout": 0}])
    assert fast.error is None and fast.response["status"] in ("Success", "Failed")
    assert zero.response is None and "invalid request" in zero.error


# -- odd files, odd bodies -----------------------------------------------------------------------------------


def test_odd_file_names_are_placed_and_fetched(judge):
    """Held: non-ASCII and space-holding names, a 255-byte name, nested folders; fetch of such names."""
    name = "données é.txt"
    long_name = "a" * 255
    [placed, fetched, nested] = judge.run_code([
        {"code": f"print(open({name!r}).read(), open({long_name!r}).read())", "language": "python",
         "files": {name: _b64("hi"), long_name: _b64("there")}},
        {"code": "open('ü ñ.txt', 'w').write('x'); print(1)", "language": "python", "fetch_files": ["ü ñ.txt", "nope"]},
        {"code": "print(open('d/e/f.txt').read())", "language": "python", "files": {"d/e/f.txt": _b64("deep")}}])
    assert placed.response["run_result"]["stdout"] == "hi there\n"
    assert fetched.response["files"] == {"ü ñ.txt": _b64("x")}
    assert nested.response["run_result"]["stdout"] == "deep\n"


def test_fetched_files_past_the_returned_bound_do_not_fail_the_run(judge):
    """Held: three 700 KiB files against a 1 MiB budget: what fits is returned, the run is not an error."""
    [result] = judge.run_code([{"code": "for n in 'abc': open(n, 'w').write('x' * 700 * 1024)\nprint(1)",
                                "language": "python", "fetch_files": ["a", "b", "c"]}])
    assert result.response["status"] == "Success" and list(result.response["files"]) == ["a"]


@pytest.mark.parametrize("body", [[1, 2], "print(1)", None, {"code": 5, "language": "python"},
                                  {"code": "print(1)", "language": "python", "files": {"../x": _b64("x")}},
                                  {"code": "print(1)", "language": "python", "run_timeout": "soon"}],
                         ids=["list", "string", "none", "code-int", "escaping-file", "timeout-word"])
def test_an_invalid_body_is_an_api_error_not_an_exception(judge, body):
    [result] = judge.run_code([body])
    assert result.response is None and result.error.startswith("API Call Failed")


def test_a_refused_language_is_a_sandbox_error_beside_runs_that_go_on(judge):
    """Held: a refused language (SandboxFusion's test runners, unknown names, non-ASCII) answers SandboxError;
    the valid requests of the same list still run and are judged."""
    bodies = [{"code": "print(1)", "language": name} for name in ("pytest", "pythön", "x" * 10000)]
    bodies.append({"code": "print(2)", "language": "python"})
    *refused, ran = judge.run_code(bodies)
    assert all(r.response["status"] == "SandboxError" for r in refused)
    assert ran.response["run_result"]["stdout"] == "2\n"


def test_a_wrong_program_is_wrong_through_the_embedded_parity_path():
    """Held: verl's check_correctness on the embedded judge (registry.shared(None)): right is True, wrong is
    False, a crash -2, a sleep past the timeout -3; none is -1 (an api error, masked)."""
    cases = {"inputs": ["1 2\n"], "outputs": ["3\n"]}
    assert parity.check_correctness(None, cases, "print(sum(map(int, input().split())))", timeout=5)[0] == [True]
    assert parity.check_correctness(None, cases, "print(4)", timeout=5)[0] == [False]
    assert parity.check_correctness(None, cases, "raise SystemExit(3)", timeout=5)[0] == [-2]
    assert parity.check_correctness(None, cases, "import time; time.sleep(5)", timeout=1)[0] == [-3]


# -- the server's /run_code through admission -----------------------------------------------------------------


@pytest.mark.slow  # about 30 s in all on this busy 2-core machine
def test_a_flood_of_refused_languages_answers_each_and_keeps_the_server_serving(server):
    """Held: refused languages now go through admission (Judge.run_code_async); 300 at once are each a
    SandboxError at once (no 504, no 500), and a real request among them runs."""
    def post(body: dict) -> httpx.Response:
        return httpx.post(server.url + "/run_code", json=body, timeout=60)

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        refused = list(pool.map(post, [{"code": "print(1)", "language": "junit"}] * 300))
        real = pool.submit(post, {"code": "print(7)", "language": "python"}).result()
    assert {r.status_code for r in refused} == {200}
    assert {r.json()["status"] for r in refused} == {"SandboxError"}
    assert real.json()["run_result"]["stdout"] == "7\n"
    assert time.monotonic() - started < 60
    assert httpx.get(server.url + "/health", timeout=10).json()["queue_depth"] == 0
