"""Adversarial review (round 3, issue 11) of many servers behind one client, and of the OpenRLHF route of
``judgebox serve``: a real server beside an endpoint that answers ``200`` with a body of the wrong shape (a
misconfigured proxy, a login page, another service on the port), and the route's token.

What holds: such an answer is never a verdict (the client raises, verl's scorer marks ``infra_error``).
Fixed since: such an endpoint's answers count towards its ejection and the call goes on to another
endpoint, so no sample is SE because of it while a working server is there.
"""

from __future__ import annotations

import asyncio
import http.server
import threading
import time

import httpx
import pytest

import judgebox
from conftest import Server
from judgebox import InvalidCases
from judgebox.client import AsyncClient, Client, ClientError
from judgebox.verl import default_compute_score
from judgebox.verl.remote import judge_on_run_code_server
from judgebox.verl.transport import RunCodeServer
from special_judges import program

CASES = [{"stdin": "2\n", "expected_output": "4\n"}]
DOUBLE = "print(int(input()) * 2)"


class Garbage:
    """A real HTTP server on loopback: ``/health`` is ok, every POST is ``200`` with an HTML page (after
    ``delay`` seconds)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.posts = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._answer(b'{"status": "ok", "slots": 1}', "application/json")

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.posts += 1
                time.sleep(delay)
                self._answer(b"<html><body>Welcome! Please sign in.</body></html>", "text/html")

            def _answer(self, data: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def real_and_garbage():
    garbage = Garbage()
    try:
        with Server() as server:
            yield server, garbage
    finally:
        garbage.close()


def test_a_wrong_shaped_200_is_never_a_verdict(real_and_garbage):
    """Through verl's scorer on both endpoints: every sample is AC, or SE marked infra_error; none WA."""
    server, garbage = real_and_garbage
    urls = f"judgebox://{server.url.removeprefix('http://')},{garbage.url.removeprefix('http://')}"
    answers = [default_compute_score("codecontests", f"```python\n{DOUBLE}\n# {i}\n```", {"inputs": ["2\n"],
                                     "outputs": ["4\n"]}, sandbox_fusion_url=urls) for i in range(8)]
    assert all(a["verdict"] == "AC" or (a["infra_error"] and a["score"] == 0.0) for a in answers), answers
    assert garbage.posts > 0  # the garbage endpoint was asked


def test_an_endpoint_answering_garbage_is_failed_over_and_ejected(real_and_garbage):
    server, garbage = real_and_garbage
    with Client([server.url, garbage.url], timeout=60) as client:
        verdicts = []
        for i in range(30):  # enough for the garbage endpoint to be chosen 3 times (random ties)
            try:
                verdicts.append(client.judge(f"{DOUBLE}\n# {i}", cases=CASES).verdict)
            except ClientError as exc:
                verdicts.append(type(exc).__name__)
        # its /health says ok, so it comes back on probation now and then: ejected at least once
        ejections = {e["url"]: e["ejections"] for e in client.endpoints()}
    assert verdicts == ["AC"] * 30, verdicts
    assert ejections[garbage.url] >= 1, ejections


def test_the_openrlhf_route_needs_the_token():
    body = {"query": ["Q```python\nprint(1)\n```"], "prompts": ["Q"],
            "labels": [{"inputs": [""], "outputs": ["1"]}]}
    with Server("--token", "s3cret") as server:
        url = server.url + "/openrlhf/reward"
        assert httpx.post(url, json=body, timeout=60).status_code == 401
        assert httpx.post(url, json=body, headers={"Authorization": "Bearer wrong"}, timeout=60).status_code == 401
        answered = httpx.post(url, json=body, headers={"Authorization": "Bearer s3cret"}, timeout=120)
    assert answered.status_code == 200, answered.text
    assert answered.json()["rewards"] == [1.0]


def test_a_cancelled_call_gives_its_budget_back():
    """A budget of one; calls to a slow endpoint cancelled while waiting for the answer, or while queued
    for the budget: each gives its place back, so the next call is sent at once (and answered)."""
    slow = Garbage(delay=1.0)

    async def run() -> list[float]:
        async with AsyncClient(slow.url, concurrency=1, timeout=30) as client:
            for _ in range(3):
                sent = asyncio.ensure_future(client.post_json("/x", {}))
                queued = asyncio.ensure_future(client.post_json("/x", {}))
                await asyncio.sleep(0.3)
                sent.cancel()
                queued.cancel()
                await asyncio.gather(sent, queued, return_exceptions=True)
            assert client.budget()["in_flight"] == 0, client.budget()
            # sent and answered (a leaked budget would end it at its deadline: DeadlineExceeded)
            with pytest.raises(ClientError, match="not JSON"):
                await client.post_json("/x", {}, deadline=20)
            return client.budget()["in_flight"]

    try:
        assert asyncio.run(run()) == 0
    finally:
        slow.close()


def test_an_interactive_problem_is_never_judged_without_its_interactor(real_and_garbage):
    """verl's judgebox:// (one server or several) and a SandboxFusion /run_code server send cases, not the
    problem's interactor: judged without it, each case was the program against an empty answer, and a
    program printing nothing scored 1.0 (the embedded judge: PE, 0.0). Now such a sample is an SE with
    infra_error (no reward), never a score."""
    server, _ = real_and_garbage
    tests = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py"), "time_limit": 1}
    silent = "```python\npass\n```"
    assert default_compute_score("codecontests", silent, tests)["verdict"] == "PE"  # embedded: judged
    answer = default_compute_score("codecontests", silent, tests,
                                   sandbox_fusion_url="judgebox://" + server.url.removeprefix("http://"))
    assert answer["infra_error"] and answer["verdict"] == "SE" and answer["score"] == 0.0, answer
    with pytest.raises(InvalidCases, match="interactor"):
        judge_on_run_code_server(RunCodeServer(server.url + "/run_code"), judgebox.Judge.submission("pass", tests),
                                 None)
