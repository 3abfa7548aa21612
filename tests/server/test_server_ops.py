"""What operators of ``judgebox serve`` rely on: the bearer token, request ids, Prometheus metrics, /health,
and /judge/batch streaming NDJSON (SandboxFusion has none of these; reference section 13, items 8 and 12)."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from judgebox.languages import LANGUAGES
from support.server import Server

SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


# --- bearer token ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def token_server():
    with Server("--workers", "1", "--token", "s3cret") as running:
        yield running


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize("authorization", [None, "Bearer wrong", "s3cret", "Basic s3cret", "Bearer s3cret2",
                                           "Bearer S3CRET"])
def test_token_refuses_missing_or_wrong(token_server, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    for method, path in (("POST", "/run_code"), ("POST", "/judge"), ("POST", "/judge/batch"), ("GET", "/metrics"),
                         ("GET", "/openapi.json")):
        response = httpx.request(method, token_server.url + path, headers=headers,
                                 json={"code": "print(1)"} if method == "POST" else None)
        assert response.status_code == 401, (path, response.status_code)
        assert response.json()["detail"] == "missing or wrong bearer token"
        assert response.headers["x-request-id"]


def test_token_admits_the_right_one(token_server):
    response = httpx.post(token_server.url + "/run_code", json={"code": "print(1)", "language": "python"},
                          headers={"Authorization": "Bearer s3cret"})
    assert response.status_code == 200 and response.json()["run_result"]["stdout"] == "1\n"


def test_health_checks_are_open_without_token(token_server):
    assert httpx.get(token_server.url + "/v1/ping").json() == "pong"
    assert httpx.get(token_server.url + "/health").json()["status"] == "ok"


# --- request ids -------------------------------------------------------------------------------------------------


def test_request_id_is_echoed_or_made(server):
    sent = httpx.post(server.url + "/run_code", json={"code": "print(1)"}, headers={"X-Request-ID": "trace-abc-123"})
    assert sent.headers["x-request-id"] == "trace-abc-123"
    refused = httpx.post(server.url + "/run_code", json={"code": 1}, headers={"X-Request-ID": "trace-422"})
    assert refused.status_code == 422 and refused.headers["x-request-id"] == "trace-422"
    made = {httpx.get(server.url + "/v1/ping").headers["x-request-id"] for _ in range(3)}
    assert len(made) == 3 and all(len(rid) >= 16 for rid in made)


# --- metrics -----------------------------------------------------------------------------------------------------


def _samples(server) -> dict[str, list]:
    response = httpx.get(server.url + "/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    families: dict[str, list] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            families.setdefault(sample.name, []).append(sample)
    return families


def _value(samples: list, **labels: str) -> float:
    return sum(s.value for s in samples if all(s.labels.get(k) == v for k, v in labels.items()))


def test_metrics_count_requests_cases_and_latency_per_language(server):
    server.wait_for_self_tests()  # their jobs would be counted busy at the end
    before = _samples(server)
    httpx.post(server.url + "/run_code", json={"code": "print(1)", "language": "python"})
    httpx.post(server.url + "/run_code", json={"code": "1 / 0", "language": "python3"})
    httpx.post(server.url + "/judge", json={"code": SUM, "cases": [{"stdin": "1 2", "expected_output": "3"},
                                                                   {"stdin": "1 2", "expected_output": "4"}]})
    httpx.post(server.url + "/run_code", json={"code": 5})
    for i in range(3):
        httpx.get(server.url + f"/no-such-path/{i}")
    after = _samples(server)

    def grew(name: str, **labels: str) -> float:
        return _value(after.get(name, []), **labels) - _value(before.get(name, []), **labels)

    assert grew("judgebox_requests_total", endpoint="/run_code", status="200") == 2
    assert grew("judgebox_requests_total", endpoint="/run_code", status="422") == 1
    assert grew("judgebox_requests_total", endpoint="/judge", status="200") == 1
    # unknown paths share one label value: a scanner cannot grow the metric without bound
    assert grew("judgebox_requests_total", endpoint="other", status="404") == 3
    assert not [s for s in after["judgebox_requests_total"] if "no-such-path" in s.labels["endpoint"]]
    assert grew("judgebox_cases_total", language="python", verdict="OK") == 1
    assert grew("judgebox_cases_total", language="python", verdict="RE") == 1
    assert grew("judgebox_cases_total", language="python", verdict="AC") == 1
    assert grew("judgebox_cases_total", language="python", verdict="WA") == 1
    assert grew("judgebox_request_seconds_count", endpoint="/run_code", language="python") == 2
    assert grew("judgebox_request_seconds_count", endpoint="/judge", language="python") == 1
    assert _value(after["judgebox_request_seconds_bucket"], endpoint="/judge", language="python", le="+Inf") >= 1
    assert "judgebox_queue_seconds_count" in after
    assert [s.value for s in after["judgebox_queue_depth"]] == [0]
    assert [s.value for s in after["judgebox_slots_busy"]] == [0]
    assert [s.value for s in after["judgebox_slots"]] == [2]


# --- health ------------------------------------------------------------------------------------------------------


def test_health_reports_isolation_languages_slots_and_queue(server):
    """Every language's self-test runs in the background after start-up; /health shows "pending" until then."""
    deadline = time.monotonic() + 120
    while (health := httpx.get(server.url + "/health").json())["languages"] == "pending":
        assert time.monotonic() < deadline, "the language self-tests did not finish"
        time.sleep(0.5)
    assert health["status"] == "ok"
    assert health["isolation"] and all(health["isolation"][layer] for layer in ("pid_namespace", "seccomp", "rlimits"))
    by_name = {entry["name"]: entry for entry in health["languages"]}
    assert by_name["python"]["available"] and by_name["python"]["reason"] == ""
    assert set(by_name) == {spec.name for spec in LANGUAGES}
    for name, entry in by_name.items():  # available, or unavailable with the reason why
        assert entry["available"] or entry["reason"], name
    assert (health["slots"], health["busy"], health["queue_depth"]) == (2, 0, 0)
    assert "artifact_cache" not in health  # open without the token: on /metrics


# --- /judge/batch ------------------------------------------------------------------------------------------------


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_batch_streams_one_ndjson_line_per_submission(server):
    """One line per submission, in the order they finish (a slow first one arrives last, and the quick ones do
    not wait for it); a bad submission is an ``error`` line, not a failed stream."""
    submissions = [
        {"code": "import time\ntime.sleep(2)\n" + SUM, "cases": [{"stdin": "1 1", "expected_output": "2"}]},
        {"code": SUM, "cases": [{"stdin": "2 3", "expected_output": "5"}, {"stdin": "2 2", "expected_output": "4"}]},
        {"code": SUM, "cases": [{"stdin": "2 3", "expected_output": "6"}]},
        {"code": "print(1 / 0)", "cases": [{"stdin": "", "expected_output": "0"}]},
        {"code": "print(1)", "language": "no-such-language", "cases": [{"stdin": "", "expected_output": "1"}]},
        {"code": "print(input())", "test_cases": {"inputs": ["x\n"], "outputs": ["x\n"]}},
    ]
    arrivals: list[tuple[float, dict]] = []
    started = time.monotonic()
    with httpx.stream("POST", server.url + "/judge/batch", json={"submissions": submissions}, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        for line in response.iter_lines():
            if line:
                arrivals.append((time.monotonic() - started, json.loads(line)))
    lines = {line["index"]: line for _, line in arrivals}
    assert len(arrivals) == len(submissions) and sorted(lines) == list(range(len(submissions)))
    verdicts = {i: line["result"]["verdict"] for i, line in lines.items() if line["result"]}
    assert verdicts == {0: "AC", 1: "AC", 2: "WA", 3: "RE", 5: "AC"}
    assert lines[1]["result"]["passed"] == 2
    assert lines[4]["result"] is None and "no-such-language" in lines[4]["error"]
    assert arrivals[-1][1]["index"] == 0, "the slow submission should finish last"
    assert arrivals[0][0] < arrivals[-1][0] - 1, "quick results must stream before the slow one is done"
