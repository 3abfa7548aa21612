"""Review r4: the many-server client (judgebox.balance, judgebox.client) against a program that is merely slow.

The attack, as found: an attempt got ``ATTEMPT_SHARE`` of the call's time left while another endpoint was
untried, and an attempt that timed out was its endpoint's failure. A correct program that runs for more than
that share of the caller's ``timeout`` (well within its own limits) then timed out everywhere: SE (masked)
where one endpoint judges it AC, and its timeouts ejected healthy endpoints (measured: 3 runs of 3, a 3.5 s
sleep under a 6 s timeout, both endpoints ejected). Fixed by liveness: /judge is kept alive by the server
(``X-Judgebox-Keepalive``), an attempt there has the whole time left while bytes come, and only an idle
endpoint is failed over. Real servers on loopback, real sandboxes.
"""

from __future__ import annotations

import asyncio
import time

import pytest

import judgebox
from conftest import Server
from judgebox import Case, Limits, Verdict
from judgebox.client import AsyncClient

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
    one = judgebox.Judge(backend="server", address=two_servers[0], timeout=TIMEOUT)
    try:
        started = time.monotonic()
        result = one.judge(SLOW_BUT_CORRECT + "# alone\n", [Case.stdio("", "1")], limits=LIMITS)
    finally:
        one.close()
    assert result.verdict is Verdict.AC, result
    assert time.monotonic() - started < TIMEOUT


@pytest.mark.slow
def test_a_slow_correct_program_is_not_masked_nor_ejects_healthy_endpoints(two_servers):
    two = judgebox.Judge(backend="server", address=list(two_servers), timeout=TIMEOUT)
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
    two = judgebox.Judge(backend="server", address=list(two_servers), timeout=TIMEOUT)
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
