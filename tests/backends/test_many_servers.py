"""Several real ``judgebox serve`` processes behind one balanced client: one SIGKILLed mid-run costs no sample
its result (through Client.judge from many threads, a /judge/batch stream, and verl's default_compute_score),
a killed server is ejected and a restarted one on its port comes back, and the process-wide budget holds
across threads, as the servers' own /health counts show.

The data is real: MBPP problems with their reference solutions (AC) and, for each, a program that defines
the functions the asserts call but returns None from them (WA). What each should get is what the embedded
judge gives it; the test also checks that this is AC for every reference and WA for every wrong program.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import http.server
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

import judgebox
from judgebox import Case, InvalidCases, Limits
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.client import AsyncClient, Client, ClientError
from judgebox.verl import default_compute_score
from judgebox.verl.on_foreign_server import judge_on_run_code_server
from support.data import load_dataset
from support.server import Server
from support.special_judges import program

pytestmark = pytest.mark.slow
PROBLEMS = 30
LIMITS = Limits(cpu_time=5, memory_mb=256)


def _called(asserts: list[str]) -> list[str]:
    """The names the asserts call that are not builtins: the functions a solution must define."""
    names: list[str] = []
    for text in asserts:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not hasattr(builtins, node.func.id):
                names += [node.func.id] if node.func.id not in names else []
    return names


def _samples() -> list[dict]:
    """References of quick MBPP problems, and a wrong program for each."""
    samples = []
    for record in load_dataset("mbpp.jsonl"):
        checked = record["meta"]["validation"]["solutions"][0]
        if checked["strict"] != 1.0 or checked["max_t"] > 0.5 or not record["test_cases"]["assert_case"]:
            continue
        asserts = record["test_cases"]["assert_case"]
        wrong = "\n".join(f"def {name}(*args, **kwargs):\n    return None\n" for name in _called(asserts))
        for code, right in ((record["solutions"][0], True), (wrong, False)):
            samples.append({"id": record["id"], "code": code, "right": right, "asserts": asserts,
                            "test_cases": record["test_cases"]})
        if len(samples) >= 2 * PROBLEMS:
            return samples
    return samples


def _cases(sample: dict) -> list[Case]:
    return [Case.asserts(text) for text in sample["asserts"]]


@pytest.fixture(scope="module")
def samples(judge):
    """Each sample with the verdict and cases passed the embedded judge gives it."""
    found = _samples()
    assert len(found) == 2 * PROBLEMS
    for sample in found:
        result = judge.judge(sample["code"], _cases(sample), limits=LIMITS)
        sample["expected"] = (str(result.verdict), sum(c.verdict == "AC" for c in result.cases))
    assert [s["expected"][0] for s in found] == ["AC" if s["right"] else "WA" for s in found]
    return found


class Trio:
    """Three one-slot servers (three slots in all on this 2-core machine); a killed one is restarted on its
    own port by ``revive``."""

    def __init__(self) -> None:
        self.servers: list[Server | None] = [self._start() for _ in range(3)]
        self.ports = [s.port for s in self.servers]
        self.urls = [s.url for s in self.servers]

    def _start(self, port: int | None = None) -> Server:
        server = Server("--workers", "1", port=port)
        server.wait_for_self_tests()
        return server

    def kill(self, index: int) -> None:
        """SIGKILL the server and, after it, what it had started (its slots would die without their parent)."""
        server = self.servers[index]
        descendants = _descendants(server.process.pid)
        server.process.kill()
        server.process.wait()
        for pid in descendants:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.servers[index] = None

    def revive(self) -> None:
        for index, server in enumerate(self.servers):
            if server is None:
                self.servers[index] = self._start(self.ports[index])

    def close(self) -> None:
        for server in self.servers:
            if server is not None:
                server.close()


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except FileNotFoundError:
                continue
            found += kids
            todo += kids
    return found


@pytest.fixture(scope="module")
def trio():
    servers = Trio()
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture
def three(trio):
    trio.revive()
    return trio


def _kill_when(trio: Trio, client: Client, index: int, done: list, after: int) -> threading.Thread:
    """Kill server ``index`` once ``after`` results are in and it has requests in flight; records them."""
    def watch() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if len(done) >= after and client.endpoints()[index]["in_flight"]:
                trio.killed_in_flight = client.endpoints()[index]["in_flight"]
                trio.kill(index)
                return
            time.sleep(0.002)
    thread = threading.Thread(target=watch)
    thread.start()
    return thread


def _admitted(client: Client) -> None:
    deadline = time.monotonic() + 30
    while any(e["ejected"] for e in client.endpoints()) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_server_killed_mid_run_costs_no_sample_its_result(three, samples):
    done: list = []
    with Client(three.urls, timeout=120) as client:
        killer = _kill_when(three, client, 1, done, after=len(samples) // 4)

        def judged(sample: dict) -> tuple[str, int]:
            reply = client.judge(sample["code"], cases=_cases(sample), limits=LIMITS)
            done.append(reply)
            return reply.verdict, reply.passed

        with ThreadPoolExecutor(6) as pool:
            got = list(pool.map(judged, samples))
        killer.join()
        stats = client.endpoints()
    assert three.servers[1] is None and three.killed_in_flight > 0  # it died with requests in flight
    assert got == [s["expected"] for s in samples]
    assert stats[1]["failures"] >= 1
    assert sum(e["requests"] for e in stats) > len(samples)  # the lost ones were asked again


def test_a_batch_stream_broken_by_a_kill_resumes_on_another_server(three, samples):
    with Client(three.urls, timeout=120) as client:
        submissions = [{"code": s["code"], "cases": _cases(s), "limits": LIMITS} for s in samples]
        lines, killed = [], None
        for line in client.judge_batch(submissions):
            lines.append(line)
            if len(lines) == 5:  # the stream's server: the one with a request in flight
                killed = next(i for i, e in enumerate(client.endpoints()) if e["in_flight"])
                three.kill(killed)
        stats = client.endpoints()
    assert killed is not None and stats[killed]["failures"] == 1
    assert sorted(line.index for line in lines) == list(range(len(samples)))
    got = {line.index: (line.result.verdict, line.result.passed) for line in lines}
    assert [got[i] for i in range(len(samples))] == [s["expected"] for s in samples]


def test_a_killed_server_is_ejected_and_a_restarted_one_comes_back(three):
    with Client(three.urls, timeout=60) as client:
        three.kill(0)
        for i in range(100):  # an idle dead endpoint is among the least loaded: its failures add up
            if client.endpoints()[0]["ejected"]:
                break
            assert client.run_code(f"print({i})").run_result.stdout == f"{i}\n"
        dead = client.endpoints()[0]
        assert dead["ejected"] and dead["failures"] >= 1 and dead["ejections"] == 1
        asked = dead["requests"]
        for i in range(6):
            client.run_code(f"print({i})")
        assert client.endpoints()[0]["requests"] == asked  # ejected: not chosen
        three.revive()
        _admitted(client)
        back = client.endpoints()[0]
        assert not back["ejected"] and back["slots"] == 1  # its /health answered
        for i in range(30):
            client.run_code(f"print({i})")
        assert client.endpoints()[0]["requests"] > asked


@pytest.mark.parametrize("form", ["judgebox", "run_code list"])
def test_verl_default_compute_score_over_three_servers_one_killed(three, samples, form):
    if form == "judgebox":
        url = "judgebox://" + ",".join(u.removeprefix("http://") for u in three.urls)
    else:
        url = [u + "/run_code" for u in three.urls]
    done: list = []
    from judgebox.backends import registry

    client = registry.shared(url).client
    _admitted(client)  # the transport outlives a test: a server killed in the last one is back in its pool
    killer = _kill_when(three, client, 2, done, after=len(samples) // 4)

    def scored(sample: dict) -> dict:
        result = default_compute_score("mbpp", f"```python\n{sample['code']}\n```", sample["test_cases"],
                                       sandbox_fusion_url=url)
        done.append(result)
        return result

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(scored, samples))
    killer.join()
    assert three.servers[2] is None and three.killed_in_flight > 0
    assert not any(r["infra_error"] for r in results), [r["error"] for r in results if r["infra_error"]]
    assert [(r["verdict"], r["passed"]) for r in results] == [s["expected"] for s in samples]
    assert [r["score"] == 1.0 for r in results] == [s["right"] for s in samples]


def test_the_budget_holds_across_threads_as_the_servers_count(three):
    sleeper = "import time\ntime.sleep(0.4)\nprint('up')"
    seen: list[int] = []

    def busiest(client: Client, threads: int) -> int:
        """Run sleepers from ``threads`` threads; the most slots busy at once over all servers, sampled.

        One reading of the three servers is not one instant: a run that ends on the first server after it
        was read and one that starts on the last before it is read would count as two at once. So each
        sample is two readings in a row, and a server counts a slot busy only if both readings saw it."""
        seen.clear()
        stop = threading.Event()

        def sample() -> None:
            with httpx.Client(timeout=5) as http:
                while not stop.is_set():
                    first, second = ([http.get(u + "/health").json()["busy"] for u in three.urls] for _ in range(2))
                    seen.append(sum(map(min, first, second)))
        sampler = threading.Thread(target=sample)
        sampler.start()
        with ThreadPoolExecutor(threads) as pool:
            outs = list(pool.map(lambda _: client.run_code(sleeper).run_result.stdout, range(3 * threads)))
        stop.set()
        sampler.join()
        assert outs == ["up\n"] * 3 * threads
        return max(seen)

    with Client(three.urls, concurrency=2) as client, Client(three.urls, concurrency=2) as twin:
        assert busiest(client, 8) <= 2
        assert client.budget()["peak"] == 2 and twin.budget() == client.budget()  # one budget for both
    with Client(three.urls) as unbounded:  # the same servers, no budget: all three slots fill
        assert busiest(unbounded, 8) == 3


# Attacks on many servers behind one client, and of the OpenRLHF route of
# ``judgebox serve``: a real server beside an endpoint that answers ``200`` with a body of the wrong shape (a
# misconfigured proxy, a login page, another service on the port), and the route's token.
#
# What holds: such an answer is never a verdict (the client raises, verl's scorer marks ``infra_error``).
# Fixed since: such an endpoint's answers count towards its ejection and the call goes on to another
# endpoint, so no sample is SE because of it while a working server is there.

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
    """verl's judgebox:// (one server or several) sends the problem's interactor with its cases, and the
    server judges as the embedded judge does; a SandboxFusion /run_code server has no interactor (judged
    without it, each case was the program against an empty answer, and a program printing nothing scored
    1.0), and is refused before anything is sent."""
    server, _ = real_and_garbage
    tests = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py"), "time_limit": 1}
    silent = "```python\npass\n```"
    assert default_compute_score("codecontests", silent, tests)["verdict"] == "PE"  # embedded: judged
    answer = default_compute_score("codecontests", silent, tests,
                                   sandbox_fusion_url="judgebox://" + server.url.removeprefix("http://"))
    assert not answer["infra_error"] and answer["verdict"] == "PE" and answer["score"] == 0.0, answer
    with pytest.raises(InvalidCases, match="interactor"):
        judge_on_run_code_server(RunCodeServer.at(server.url + "/run_code"), judgebox.Judge.submission("pass", tests),
                                 None)
