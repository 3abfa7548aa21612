"""Load on one ``judgebox serve`` with two slots: 5,000 requests (4,000 /run_code + 1,000 /judge of two cases
each), 128 in flight at once, as a verl trainer's reward workers would send them.

Every answer is checked against its own expected stdout or verdicts (each request has a different input, so a
mixed-up answer is caught), and the run must have zero lost requests, zero 5xx (nor 504 from admission: 128
waiting clients on 2 slots are well inside the 30 s ``max_wait``), and zero TLE for the CPU-light correct
program (TLE is on CPU time, so waiting for a slot never counts against a program; SandboxFusion's wall clock
fails correct code under load). p50/p99 of the reported ``queue_time`` and the request rate are printed
(``pytest -s``) and not asserted: they depend on the machine.

The client is aiohttp (installed with ``sandbox-fusion``, whose async client uses it) with one pool of 128
connections: httpx's AsyncClient costs ~3 ms of client CPU per request at 128 connections, which on a small
CI machine would measure the client, not the server.
"""

from __future__ import annotations

import asyncio
import random
import time

import aiohttp
import httpx
import pytest

from support.server import Server

RUN_CODE_REQUESTS = 4000
JUDGE_REQUESTS = 1000
CONCURRENCY = 128
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
DOUBLE = "print(2 * int(input()))\n"


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def _drive(url: str) -> dict:
    work = [("run", i) for i in range(RUN_CODE_REQUESTS)] + [("judge", i) for i in range(JUDGE_REQUESTS)]
    random.Random(7).shuffle(work)
    queue_times: list[float] = []
    statuses: dict[int, int] = {}
    wrong: list[str] = []
    tle = 0

    async def one(session: aiohttp.ClientSession, kind: str, i: int) -> None:
        nonlocal tle
        if kind == "run":
            payload = {"code": SUM, "stdin": f"{i} {3 * i}\n", "language": "python", "run_timeout": 5}
            path = "/run_code"
        else:
            payload = {"code": DOUBLE, "cases": [{"stdin": str(i), "expected_output": str(2 * i)},
                                                 {"stdin": str(i), "expected_output": str(2 * i + 1)}]}
            path = "/judge"
        async with session.post(path, json=payload) as response:
            statuses[response.status] = statuses.get(response.status, 0) + 1
            if response.status != 200:
                wrong.append(f"{kind} {i}: HTTP {response.status} {(await response.text())[:200]}")
                return
            body = await response.json()
        queue_times.append(body["queue_time"])
        if kind == "run":
            run = body["run_result"] or {}
            tle += run.get("status") == "TimeLimitExceeded"
            if (body["status"], run.get("stdout")) != ("Success", f"{4 * i}\n"):
                wrong.append(f"run {i}: {body['status']} {body['message']!r} {run}")
        else:
            verdicts = [case["verdict"] for case in body["cases"]]
            tle += verdicts.count("TLE")
            if verdicts != ["AC", "WA"] or body["cases"][0]["stdout"] != f"{2 * i}\n":
                wrong.append(f"judge {i}: {verdicts} {body['message']!r}")

    connector = aiohttp.TCPConnector(limit=CONCURRENCY)
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as session:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def gated(kind: str, i: int) -> None:
            async with gate:
                await one(session, kind, i)

        started = time.monotonic()
        outcomes = await asyncio.gather(*(gated(kind, i) for kind, i in work), return_exceptions=True)
        seconds = time.monotonic() - started
    lost = [f"{work[n]}: {type(o).__name__}: {o}" for n, o in enumerate(outcomes) if isinstance(o, BaseException)]
    return {"sent": len(work), "seconds": seconds, "statuses": statuses, "wrong": wrong, "lost": lost, "tle": tle,
            "queue_times": queue_times}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_5000_mixed_requests_at_concurrency_128():
    with Server("--workers", "2") as server:
        report = asyncio.run(_drive(server.url))
        health = httpx.get(server.url + "/health").json()
        metrics = httpx.get(server.url + "/metrics").text
    queue_times = report["queue_times"]
    p50, p99 = _percentile(queue_times, 0.50), _percentile(queue_times, 0.99)
    print(f"\n{report['sent']} requests in {report['seconds']:.1f} s = {report['sent'] / report['seconds']:.0f} "
          f"requests/s ({RUN_CODE_REQUESTS} /run_code + {JUDGE_REQUESTS} /judge x 2 cases, {CONCURRENCY} in flight, "
          f"2 slots); queue_time p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {max(queue_times) * 1000:.0f} "
          f"ms; HTTP statuses {report['statuses']}")
    assert not report["lost"], report["lost"][:5]
    assert not report["wrong"], report["wrong"][:5]
    assert report["statuses"] == {200: report["sent"]}
    assert report["tle"] == 0
    assert len(queue_times) == report["sent"] and all(isinstance(q, float) and q >= 0 for q in queue_times)
    assert (health["busy"], health["queue_depth"]) == (0, 0)
    assert not [line for line in metrics.splitlines()
                if line.startswith("judgebox_requests_total") and 'status="5' in line]
