"""Endpoints whose ``/health`` says ok while their requests fail, beside real ``judgebox serve`` processes on
loopback: one that never answers /judge, /judge/batch or /run_code (hung), and one that answers every
request at once with a judge-side SE of the right schema (a broken sandbox behind a working HTTP layer).

What must hold: every correct program comes back AC within the caller's deadline (``timeout=`` of
``Judge(backend="server")``, the derived deadline of verl's judgebox:// transport, ``deadline=`` of the client),
because an attempt on /run_code gets half the time left while another endpoint is there to try, one on
/judge is failed over once no keepalive byte came for ``IDLE_TIMEOUT``, such a timeout is the endpoint's
failure, and an SE the pool doubts is asked again elsewhere; both sick endpoints end ejected. And
submissions that are SE everywhere (a language no server runs) eject no endpoint: an endpoint is ejected for
its SE share only against the others'.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import judgebox
from judgebox import Case, Limits, Verdict, rewards
from judgebox.client import AsyncClient, Client
from support.scripted_http import Scripted, batch_line, kept_alive, reply, stream
from support.server import Server

MARGIN = 1.5  # seconds past a deadline an answer may come (scheduling, the last attempt's connect)
DOUBLE = "print(int(input()) * 2)"
SE_RESULT = {"verdict": "SE", "score": 0.0, "passed": 0, "total": 1, "cases": [], "wall_time": 0.0,
             "cpu_time": 0.0, "queue_time": 0.0, "message": "the sandbox failed: could not start a slot"}
AC_RESULT = {**SE_RESULT, "verdict": "AC", "score": 1.0, "passed": 1, "message": ""}
SE_RUN = {"status": "SandboxError", "message": "the sandbox failed: could not start a slot"}
OK_RUN = {"status": "Success", "message": "", "run_result": {"status": "Finished", "return_code": 0,
                                                             "stdout": "ok\n"}}


class Endpoint:
    """A real HTTP/1.1 server on 127.0.0.1 (test_client's ``Scripted``) whose ``/health`` answers ok. ``mode``:
    ``hung`` reads each request and never answers it (until closed); ``beating`` answers /judge with a 200 kept
    alive (a space every 0.3 s) for ``delay`` seconds, then hangs; ``se`` answers each at once with a
    judge-side SE (/judge, /run_code, and a line per submission on /judge/batch); ``ok`` answers AC / Success
    likewise, after ``delay`` seconds."""

    def __init__(self, mode: str, delay: float = 0.0) -> None:
        self.mode, self.delay, self.closing = mode, delay, threading.Event()
        self.scripted = Scripted(self._answer)
        self.url = self.scripted.url

    @property
    def posts(self) -> int:
        return sum(path not in ("/health", "/v1/ping") for path, _, _ in self.scripted.requests)

    def _answer(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        if handler.path in ("/health", "/v1/ping"):
            return reply(200, "pong" if handler.path == "/v1/ping" else {"status": "ok", "slots": 2})(handler)
        if self.mode == "hung":
            self.closing.wait()  # the request is in; its answer never comes
            return None
        if self.mode == "beating":
            return kept_alive(self.delay, None, every=0.3)(handler)
        time.sleep(self.delay)
        result, run = (SE_RESULT, SE_RUN) if self.mode == "se" else (AC_RESULT, OK_RUN)
        if handler.path != "/judge/batch":
            return reply(200, run if handler.path == "/run_code" else result)(handler)
        asked = handler.headers.get("X-Request-ID")
        with self.scripted.lock:  # this request's body: the last one recorded with its request id
            body = next(b for _, h, b in reversed(self.scripted.requests) if h.get("X-Request-ID") == asked)
        count = len(json.loads(body)["submissions"])
        return stream(b"".join(batch_line(i, result["verdict"]) for i in range(count)))(handler)

    def close(self) -> None:
        self.closing.set()
        self.scripted.__exit__()

    def __enter__(self) -> Endpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def by_url(stats: list[dict]) -> dict[str, dict]:
    return {e["url"]: e for e in stats}


def assert_ejected(stat: dict, cause: str) -> None:
    """Ejected for ``cause``: out of the choice, or back on probation after its /health answered (it
    answered no request well since, so it is on probation still)."""
    assert stat["ejections"] >= 1 and (stat["ejected"] or stat["probation"]), stat
    assert cause in stat["last_failure"], stat


def timed(call, *args, **kwargs) -> tuple[object, float]:
    started = time.monotonic()
    answer = call(*args, **kwargs)
    return answer, time.monotonic() - started


# --- small real servers: the rule, quickly ---------------------------------------------------------------------

@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_an_all_se_endpoint_is_asked_again_elsewhere_and_ejected():
    with Endpoint("ok") as ok, Endpoint("se") as se, Client([ok.url, se.url]) as client:
        answers = [client.run_code(f"print({i})") for i in range(40)]
        stats = by_url(client.endpoints())
    assert [a.status for a in answers] == ["Success"] * 40
    assert_ejected(stats[se.url], "judge-side SE")
    assert not stats[ok.url]["ejected"] and stats[ok.url]["se_answers"] == 0
    assert se.posts >= 1 and ok.posts == 40  # every call was answered by the working endpoint in the end


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_an_se_endpoint_that_recovers_is_admitted_back():
    with Endpoint("ok") as ok, Endpoint("se") as se, Client([ok.url, se.url]) as client:
        for i in range(100):
            assert client.run_code(f"print({i})").status == "Success"
            if client.endpoints()[1]["ejections"]:
                break
        assert_ejected(client.endpoints()[1], "judge-side SE")
        se.mode = "ok"  # its sandbox works again
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (client.endpoints()[1]["ejected"] or client.endpoints()[1]["probation"]):
            client.run_code("print(1)")  # admitted on its /health, on probation until it answers one well
            time.sleep(0.05)
        back, posts = client.endpoints()[1], se.posts
        assert not back["ejected"] and not back["probation"], back
        answers = [client.run_code(f"print({i})").status for i in range(30)]
        assert answers == ["Success"] * 30 and se.posts > posts  # in the choice again


def test_a_batch_stream_of_se_lines_is_asked_again_elsewhere():
    submissions = [{"code": DOUBLE, "cases": [{"stdin": str(i), "expected_output": str(2 * i)}]} for i in range(5)]
    with Endpoint("ok") as ok, Endpoint("se") as se, Client([se.url, ok.url]) as client:
        for _ in range(8):  # both endpoints get the first stream now and then (random ties)
            lines = list(client.judge_batch(submissions, deadline=10))
            assert sorted(line.index for line in lines) == list(range(5))
            assert {line.result.verdict for line in lines} == {"AC"}
    assert se.posts >= 1


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_submissions_that_are_se_everywhere_eject_no_endpoint():
    """Three endpoints that all answer SE (what a language no server runs, or an invalid dataset, gives): no
    answer is anything but SE, none is ejected, and second opinions stop once the others' share shows SE is
    what the submissions get."""
    with Endpoint("se") as a, Endpoint("se") as b, Endpoint("se") as c, Client([a.url, b.url, c.url]) as client:
        answers = [client.run_code(f"print({i})") for i in range(60)]
        stats = client.endpoints()
    assert {a.status for a in answers} == {"SandboxError"}
    assert not any(e["ejected"] or e["ejections"] for e in stats), stats
    asked = a.posts + b.posts + c.posts
    assert asked < 60 + 25, asked  # second opinions for the first answers only


def test_a_hung_endpoint_costs_an_attempt_half_the_deadline_and_is_ejected():
    deadline = 3.0
    with Endpoint("ok", delay=0.05) as ok, Endpoint("hung") as hung, Client([ok.url, hung.url]) as client:
        with ThreadPoolExecutor(8) as pool:  # enough at once that the least busy is now and then the hung one
            timings = list(pool.map(lambda i: timed(client.run_code, f"print({i})", deadline=deadline), range(64)))
        stats = by_url(client.endpoints())
    assert [answer.status for answer, _ in timings] == ["Success"] * 64
    slowest = max(seconds for _, seconds in timings)
    assert deadline / 2 - 0.2 < slowest < deadline + MARGIN, slowest  # one waited out its half on the hung one
    assert_ejected(stats[hung.url], "ReadTimeout")
    assert hung.posts >= 3


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_the_async_client_fails_over_a_hung_and_an_se_endpoint_too():
    async def calls(urls: list[str]) -> tuple[list, list]:
        async with AsyncClient(urls) as client:
            answers = await asyncio.gather(*(client.run_code(f"print({i})", deadline=3) for i in range(24)))
            return answers, client.endpoints()

    with Endpoint("ok", delay=0.05) as ok, Endpoint("hung") as hung, Endpoint("se") as se:
        started = time.monotonic()
        answers, stats = asyncio.run(calls([hung.url, se.url, ok.url]))
        elapsed = time.monotonic() - started
    assert [a.status for a in answers] == ["Success"] * 24 and elapsed < 3 + MARGIN
    assert_ejected(by_url(stats)[hung.url], "ReadTimeout")


def test_a_sole_endpoint_keeps_the_whole_deadline():
    with Endpoint("hung") as hung, Client(hung.url) as client:
        started = time.monotonic()
        with pytest.raises(judgebox.client.DeadlineExceeded):
            client.run_code("print(1)", deadline=1.0)
        assert 1.0 <= time.monotonic() - started < 1.0 + MARGIN
        assert hung.posts == 1 and not client.endpoints()[0]["ejected"]


# --- real judgebox serve beside the sick endpoints -------------------------------------------------------------

@pytest.fixture(scope="module")
def sick():
    with Endpoint("hung") as hung, Endpoint("se") as se:
        yield hung, se


def _programs(count: int) -> list[tuple[str, list[Case]]]:
    return [(f"{DOUBLE}\n# {i}", [Case.stdio(f"{i}\n", f"{2 * i}\n")]) for i in range(count)]


@pytest.mark.slow
def test_judge_server_backend_over_a_real_server_a_hung_one_and_an_se_one(server, sick):
    hung, se = sick
    timeout = 12.0
    programs = _programs(40)
    with judgebox.connect([hung.url, se.url, server.url], timeout=timeout) as remote:
        with ThreadPoolExecutor(8) as pool:
            timings = list(pool.map(lambda p: timed(remote.judge, p[0], p[1]), programs))
        stats = by_url(remote.client.endpoints())
        # the same pool: the batch stream and the async route
        submissions = [remote.submission(code, cases) for code, cases in programs[:10]]
        many, many_seconds = timed(lambda: sorted(remote.judge_many(submissions)))
        samples = [{"completion": f"```python\n{DOUBLE}\n# {i}\n```",
                    "test_cases": {"inputs": [f"{i}\n"], "outputs": [f"{2 * i}\n"]}} for i in range(10)]
        scored, scored_seconds = timed(rewards.score_batch_sync, samples, judge=remote)
    assert [r.verdict for r, _ in timings] == [Verdict.AC] * 40, [r.message for r, _ in timings if r.verdict != "AC"]
    slowest = max(seconds for _, seconds in timings)
    assert slowest < timeout + MARGIN, slowest
    assert_ejected(stats[hung.url], "ReadTimeout")
    assert_ejected(stats[se.url], "judge-side SE")
    assert not stats[server.url]["ejected"] and stats[server.url]["se_answers"] == 0
    print(f"\njudge x40: slowest {slowest:.1f} s; judge_many x10 {many_seconds:.1f} s; score_batch x10 "
          f"{scored_seconds:.1f} s; stats {list(stats.values())}")
    assert [r.verdict for _, r in many] == [Verdict.AC] * 10
    assert [r.verdict for r in scored] == [Verdict.AC] * 10


@pytest.mark.slow
def test_verl_judgebox_transport_over_a_real_server_a_hung_one_and_an_se_one(server, sick):
    """verl's judgebox:// transport (its own pool: the endpoints in another order): its deadline is derived,
    60 s plus three times each case's wall-clock backstop (here 5 s at timeout=1), so a hung endpoint costs a
    sample half of that."""
    from judgebox.backends import registry
    from judgebox.verl import default_compute_score

    hung, se = sick
    url = "judgebox://" + ",".join(u.removeprefix("http://") for u in (se.url, server.url, hung.url))
    deadline = 60 + 3 * (3 * 1 + 2)

    def scored(i: int) -> tuple[dict, float]:
        return timed(default_compute_score, "codecontests", f"```python\n{DOUBLE}\n# {i}\n```",
                     {"inputs": [f"{i}\n"], "outputs": [f"{2 * i}\n"]}, sandbox_fusion_url=url, timeout=1)

    with ThreadPoolExecutor(8) as pool:
        timings = list(pool.map(scored, range(48)))
    stats = by_url(registry.shared(url).client.endpoints())
    assert not any(r["infra_error"] for r, _ in timings), [r["error"] for r, _ in timings if r["infra_error"]]
    assert [(r["verdict"], r["score"]) for r, _ in timings] == [("AC", 1.0)] * 48
    slowest = max(seconds for _, seconds in timings)
    assert slowest < deadline + MARGIN, slowest
    print(f"\nverl x48: slowest {slowest:.1f} s; stats {list(stats.values())}")
    assert_ejected(stats[hung.url], "ReadTimeout")
    assert_ejected(stats[se.url], "judge-side SE")


@pytest.mark.slow
def test_a_language_no_server_runs_is_se_everywhere_and_ejects_neither_real_server(server):
    """Two real servers, /run_code in a language judgebox does not run here: SandboxError on both, for every
    submission. Neither is ejected, and second opinions stop once both have answered SE enough."""
    with Server("--workers", "1") as second, Client([server.url, second.url]) as client:
        answers = [client.run_code(f"select {i};", language="sql") for i in range(30)]
        stats = client.endpoints()
    print(f"\nsql x30 on two real servers: {[(e['requests'], e['se_share']) for e in stats]}")
    assert {a.status for a in answers} == {"SandboxError"}
    assert not any(e["ejected"] or e["ejections"] for e in stats), stats
    assert sum(e["requests"] for e in stats) < 30 + 15, stats


@pytest.mark.slow
def test_an_endpoint_alive_for_a_while_then_hung_fails_over_to_a_real_server(server):
    """Endpoint 1 answers /judge with a 200 kept alive for 2 s, then nothing: each call that goes there is
    failed over after the idle timeout and judged AC by the real server within the caller's timeout; the
    beating endpoint ends ejected for its ReadTimeouts, the real one untouched."""
    timeout = 10.0
    programs = _programs(16)
    with Endpoint("beating", delay=2.0) as beating:
        with judgebox.connect([beating.url, server.url], timeout=timeout) as remote:
            with ThreadPoolExecutor(8) as pool:
                timings = list(pool.map(lambda p: timed(remote.judge, p[0], p[1]), programs))
            stats = by_url(remote.client.endpoints())
    assert [r.verdict for r, _ in timings] == [Verdict.AC] * 16, [r.message for r, _ in timings]
    slowest = max(seconds for _, seconds in timings)
    assert slowest < timeout, slowest
    assert beating.posts >= 1
    assert_ejected(stats[beating.url], "ReadTimeout")
    assert not stats[server.url]["ejected"] and stats[server.url]["failures"] == 0


# the many-server client (judgebox.client.balance, judgebox.client) against a program that is merely slow.
#
# The attack, as found: an attempt got ``ATTEMPT_SHARE`` of the call's time left while another endpoint was
# untried, and an attempt that timed out was its endpoint's failure. A correct program that runs for more than
# that share of the caller's ``timeout`` (well within its own limits) then timed out everywhere: SE (masked)
# where one endpoint judges it AC, and its timeouts ejected healthy endpoints (measured: 3 runs of 3, a 3.5 s
# sleep under a 6 s timeout, both endpoints ejected). Fixed by liveness: /judge is kept alive by the server
# (``X-Judgebox-Keepalive``), an attempt there has the whole time left while bytes come, and only an idle
# endpoint is failed over. Real servers on loopback, real sandboxes.

SLOW_BUT_CORRECT = "import time\ntime.sleep(3.5)\nprint(1)\n"  # a 3 s CPU limit: an 11 s wall backstop
LIMITS = Limits(cpu_time=3)
TIMEOUT = 6.0


@pytest.fixture(scope="module")
def two_servers():
    with Server("--workers", "1") as first, Server("--workers", "1") as second:
        for server in (first, second):  # their start-up self-tests hold the one slot: not in the timings
            server.wait_for_self_tests()
        yield first.url, second.url


@pytest.mark.slow
def test_one_endpoint_judges_the_slow_program_within_the_timeout(two_servers):
    one = judgebox.connect(two_servers[0], timeout=TIMEOUT)
    try:
        started = time.monotonic()
        result = one.judge(SLOW_BUT_CORRECT + "# alone\n", [Case.stdio("", "1")], limits=LIMITS)
    finally:
        one.close()
    assert result.verdict is Verdict.AC, result
    assert time.monotonic() - started < TIMEOUT


@pytest.mark.slow
def test_a_slow_correct_program_is_not_masked_nor_ejects_healthy_endpoints(two_servers):
    two = judgebox.connect(list(two_servers), timeout=TIMEOUT)
    try:
        verdicts = [two.judge(SLOW_BUT_CORRECT + f"# {k}\n", [Case.stdio("", "1")], limits=LIMITS).verdict
                    for k in range(3)]
        endpoints = two.client._pool.stats()
    finally:
        two.close()
    assert verdicts == [Verdict.AC] * 3, verdicts
    assert not any(e["ejections"] for e in endpoints), endpoints


@pytest.mark.slow
def test_a_correct_program_taking_70_percent_of_the_timeout_is_ac_and_ejects_nothing(two_servers):
    """4.2 s of a 6 s timeout, on two healthy endpoints: the sync judge (one at a time) and the async client
    (two at once, one on each endpoint): every answer AC within the timeout, no endpoint failed."""
    program = "import time\ntime.sleep(4.2)\nprint(1)\n"
    two = judgebox.connect(list(two_servers), timeout=TIMEOUT)
    try:
        timings = []
        for k in range(2):
            started = time.monotonic()
            verdict = two.judge(program + f"# 70% {k}\n", [Case.stdio("", "1")], limits=LIMITS).verdict
            timings.append((verdict, time.monotonic() - started))
        endpoints = two.client._pool.stats()
    finally:
        two.close()
    assert [v for v, _ in timings] == [Verdict.AC] * 2 and max(s for _, s in timings) < TIMEOUT, timings
    assert not any(e["failures"] or e["ejections"] for e in endpoints), endpoints

    async def together() -> tuple[list[str], float, list[dict]]:
        async with AsyncClient(list(two_servers), timeout=TIMEOUT) as client:
            started = time.monotonic()
            answers = await asyncio.gather(*(client.judge(program + f"# 70% async {k}\n", cases=[Case.stdio("", "1")],
                                                          limits=LIMITS) for k in range(2)))
            return [a.verdict for a in answers], time.monotonic() - started, client.endpoints()

    verdicts, seconds, endpoints = asyncio.run(together())
    assert verdicts == ["AC"] * 2 and seconds < TIMEOUT, (verdicts, seconds)
    assert not any(e["failures"] or e["ejections"] for e in endpoints), endpoints
