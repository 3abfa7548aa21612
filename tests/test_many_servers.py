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
import builtins
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from conftest import Server, load_dataset
from judgebox import Case, Limits
from judgebox.client import Client
from judgebox.verl import default_compute_score

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
    from judgebox.verl.transport import transport_for

    client = transport_for(url).judge_client
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
        """Run sleepers from ``threads`` threads; the most slots busy at once over all servers, sampled."""
        seen.clear()
        stop = threading.Event()

        def sample() -> None:
            with httpx.Client(timeout=5) as http:
                while not stop.is_set():
                    seen.append(sum(http.get(u + "/health").json()["busy"] for u in three.urls))
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
