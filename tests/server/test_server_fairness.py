"""One tenant must not starve the others: the worker pool is fair between requests (and between embedded
``judge()`` calls), ``queue_time`` is the real wait for a slot, a request whose first case cannot start within
its deadline gets 504 with ``Retry-After``, and a client that hangs up has its queued work cancelled.

The programs sleep (wall-clock limits stop them, no CPU is burned), so the tests stay short on a busy 2-core
machine. Timing assertions are orderings and generous bounds only: the honest request is answered before the
sleeper's request and within a few seconds; the slots free within a few seconds of a hang-up instead of after
the tens of seconds of work that were queued.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

import judgebox
from judgebox import Case, Limits
from support.server import Server

HONEST = "print(int(input()) * 2)\n"


def _sleeper(seconds: float, cases: int) -> dict:
    """A /judge body whose every case sleeps ``seconds`` and then passes."""
    return {"code": f"import time\ntime.sleep({seconds})\nprint(input())\n",
            "cases": [{"stdin": str(i), "expected_output": str(i)} for i in range(cases)],
            "limits": {"cpu_time": 1, "wall_time": seconds + 5}}


def _in_background(url: str, path: str, payload: dict) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def post() -> None:
        started = time.monotonic()
        response = httpx.post(url + path, json=payload, timeout=120)
        outcome.update(response=response, seconds=time.monotonic() - started, finished=time.monotonic())

    thread = threading.Thread(target=post)
    thread.start()
    return thread, outcome


def _health(server: Server) -> dict:
    return httpx.get(server.url + "/health", timeout=10).json()


def _wait_until_busy(server: Server, slots: int = 2, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while _health(server)["busy"] < slots:
        assert time.monotonic() < deadline, "the sleeping cases never occupied the slots"
        time.sleep(0.05)


def _seconds_until_idle(server: Server, timeout: float = 60) -> float:
    """Until no slot is busy and nothing waits (bounded), in seconds."""
    started = time.monotonic()
    while (health := _health(server))["busy"] or health["queue_depth"]:
        assert time.monotonic() - started < timeout, f"the server did not become idle: {health}"
        time.sleep(0.05)
    return time.monotonic() - started


def _send_and_keep_open(server: Server, path: str, payload: dict) -> socket.socket:
    """A whole request on a raw connection, left open without reading the answer."""
    body = json.dumps(payload).encode()
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    connection.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    return connection


@pytest.fixture(scope="module")
def two_slots():
    with Server("--workers", "2") as running:
        running.wait_for_self_tests()
        yield running


@pytest.fixture(scope="module")
def short_wait():
    """A server that gives a request at most 2 s to get its first case onto a slot."""
    with Server("--workers", "2", "--max-wait", "2") as running:
        running.wait_for_self_tests()
        yield running


@pytest.mark.timeout(120)
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_an_honest_request_is_not_starved_by_a_judge_of_sleeping_cases(two_slots):
    """6 cases sleeping 2 s on 2 slots hold the server for 6 s; a one-line /run_code and a /judge sent while
    they run start at the next free slot, not after the sleeper's last case; their queue_time is that wait."""
    sleeper, slept = _in_background(two_slots.url, "/judge", _sleeper(2, 6))
    _wait_until_busy(two_slots)
    judged, honest_judge = _in_background(two_slots.url, "/judge", {
        "code": HONEST, "cases": [{"stdin": "3", "expected_output": "6"}, {"stdin": "4", "expected_output": "8"}]})
    started = time.monotonic()
    response = httpx.post(two_slots.url + "/run_code", json={"code": HONEST, "stdin": "21", "language": "python"},
                          timeout=120)
    seconds = time.monotonic() - started
    finished = time.monotonic()
    judged.join(60)
    sleeper.join(60)
    body = response.json()
    assert response.status_code == 200 and (body["status"], body["run_result"]["stdout"]) == ("Success", "42\n")
    print(f"\nhonest /run_code answered after {seconds:.2f} s (queue_time {body['queue_time']:.2f} s); honest /judge "
          f"after {honest_judge['seconds']:.2f} s (queue_time {honest_judge['response'].json()['queue_time']:.2f} "
          f"s); the sleeper's /judge after {slept['seconds']:.2f} s")
    assert finished < slept["finished"] and honest_judge["finished"] < slept["finished"], \
        "the honest requests must be answered before the sleeper's"
    assert seconds < 5 and honest_judge["seconds"] < 5
    # queue_time is the real wait for a slot (a sleeping case had to end first), not the time in admission
    assert 0.3 < body["queue_time"] <= seconds and body["queue_time"] >= seconds - 1.0
    judge_body = honest_judge["response"].json()
    assert (judge_body["verdict"], judge_body["passed"]) == ("AC", 2)
    assert 0.3 < judge_body["queue_time"] <= honest_judge["seconds"]
    sleeper_body = slept["response"].json()
    assert (sleeper_body["verdict"], sleeper_body["passed"]) == ("AC", 6)
    assert sleeper_body["queue_time"] < 2  # it started at once; its later cases' waits are its own
    assert _seconds_until_idle(two_slots) < 10


@pytest.mark.timeout(120)
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_504_with_retry_after_when_no_slot_frees_within_the_wait(short_wait):
    """Two 6 s cases hold both slots; a /judge and a /run_code that cannot start within the server's 2 s get
    504 with Retry-After (verl retries 504), their jobs are cancelled, and the sleeper is not disturbed."""
    sleeper, slept = _in_background(short_wait.url, "/judge", _sleeper(6, 2))
    _wait_until_busy(short_wait)
    started = time.monotonic()
    judged = httpx.post(short_wait.url + "/judge", timeout=60,
                        json={"code": HONEST, "cases": [{"stdin": "1", "expected_output": "2"}]})
    ran = httpx.post(short_wait.url + "/run_code", timeout=60,
                     json={"code": HONEST, "stdin": "1", "language": "python"})
    seconds = time.monotonic() - started
    for response in (judged, ran):
        assert response.status_code == 504, response.text
        assert response.headers["retry-after"] and "within 2 s" in response.json()["detail"]
    assert 3.5 < seconds < 20  # each waited its 2 s, and no longer than the sleeping cases run
    health = _health(short_wait)
    assert health["queue_depth"] == 0 and health["busy"] == 2  # cancelled, not left in the queue
    sleeper.join(60)
    assert slept["response"].status_code == 200 and slept["response"].json()["passed"] == 2
    assert _seconds_until_idle(short_wait) < 10
    again = httpx.post(short_wait.url + "/run_code", json={"code": HONEST, "stdin": "5", "language": "python"})
    assert again.status_code == 200 and again.json()["run_result"]["stdout"] == "10\n"


@pytest.mark.slow  # about 16 s in all on this busy 2-core machine
@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", ["/judge", "/judge/batch"])
def test_a_client_that_hangs_up_has_its_queued_work_cancelled(two_slots, path):
    """40 s of sleeping cases (20 x 2 s on 2 slots); the client hangs up once they run: the slots are free
    again within a few seconds (the two running cases finish), not after the 40 s."""
    payload = _sleeper(2, 20)
    if path == "/judge/batch":
        payload = {"submissions": [_sleeper(2, 5) for _ in range(4)]}
    connection = _send_and_keep_open(two_slots, path, payload)
    _wait_until_busy(two_slots)
    assert _health(two_slots)["busy"] == 2
    connection.close()
    idle_after = _seconds_until_idle(two_slots, timeout=60)
    print(f"\n{path}: slots idle {idle_after:.2f} s after the client hung up (40 s of work was queued)")
    assert idle_after < 8
    response = httpx.post(two_slots.url + "/run_code", json={"code": HONEST, "stdin": "2", "language": "python"})
    assert response.status_code == 200 and response.json()["queue_time"] < 2


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.timeout(120)
def test_embedded_judge_is_fair_between_threads():
    """Two threads calling Judge.judge: one with 8 cases sleeping 1 s, one with a quick case sent once the
    sleeper holds both slots. The quick one runs at the next free slot, not after the 4 s of the sleeper."""
    with judgebox.Judge(slots=2) as judge:
        slow: dict = {}

        def sleeper() -> None:
            result = judge.judge("import time\ntime.sleep(1)\nprint(input())",
                                 [Case.stdio(str(i), str(i)) for i in range(8)], limits=Limits(cpu_time=1, wall_time=6))
            slow.update(result=result, finished=time.monotonic())

        thread = threading.Thread(target=sleeper)
        thread.start()
        deadline = time.monotonic() + 20
        while judge._pool.busy < 2:
            assert time.monotonic() < deadline, "the sleeping cases never occupied the slots"
            time.sleep(0.01)
        started = time.monotonic()
        quick = judge.judge(HONEST, [Case.stdio("5", "10")])
        finished = time.monotonic()
        thread.join(60)
    print(f"\nembedded: the quick judge() took {finished - started:.2f} s beside 8 sleeping cases")
    assert quick.verdict == judgebox.Verdict.AC
    assert slow["result"].passed == 8
    assert finished < slow["finished"] and finished - started < 3


@pytest.mark.timeout(60)
def test_pool_cancels_one_group_and_keeps_its_tenants_other_groups():
    """Groups of one tenant (a /judge/batch's submissions) queue in order; cancelling one group cancels its
    queued jobs and its later ones, and leaves the running job and the other group's jobs alone."""
    from judgebox.judging.pool import Group, Tenant
    from judgebox.sandbox.slot import PythonProgram

    limits = Limits(cpu_time=1, wall_time=5)
    with judgebox.Judge(slots=1) as judge:
        pool = judge._pool
        tenant = Tenant()
        first, second = Group(tenant), Group(tenant)
        running = pool.submit(PythonProgram("import time\ntime.sleep(1)\nprint('a')"), b"", limits, group=first)
        queued = [pool.submit(PythonProgram("print('b')"), b"", limits, group=first) for _ in range(3)]
        other = pool.submit(PythonProgram("print('c')"), b"", limits, group=second)
        deadline = time.monotonic() + 20
        while first.started is None:
            assert time.monotonic() < deadline, "the first job never started"
            time.sleep(0.01)
        assert pool.cancel(first, unless_started=True) is False  # it has started: nothing is cancelled
        assert pool.cancel(first) is True
        late = pool.submit(PythonProgram("print('d')"), b"", limits, group=first)
        assert all(f.cancelled() for f in queued) and late.cancelled()
        assert running.result(timeout=20).stdout == b"a\n" and other.result(timeout=20).stdout == b"c\n"
        assert second.started is not None and second.started >= first.started


# Attack: one /judge/batch request locks every other client out of `judgebox serve`.
#
# Each submission of a batch is its own Group in Admission._in_flight, and the in-flight bound
# (max_waiting = 4096) is the same number as a batch's maximum length (BatchRequest: 4096 submissions). So
# one batch of 4096 slow submissions fills the bound by itself: every other client's /run_code or /judge
# is answered 504 "too many requests in flight" at once, for as long as the batch's submissions are in flight
# (up to --max-wait each; resend the batch to keep it up). The "submissions of one batch share one tenant"
# fairness never gets a chance to apply.
#
# Judge gave: the victim's one-line /run_code got HTTP 504 while the batch was in flight.
# A correct judge gives the victim 200 with its result within about one case's time (the fair share), and
# never lets one request take the whole in-flight budget.

SLOW = "while True:\n    pass\n"


@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_one_batch_does_not_lock_other_clients_out():
    with Server("--workers", "1", "--max-wait", "4") as server:
        submissions = [{"code": SLOW, "cases": [{"kind": "stdio", "stdin": "", "expected_output": ""}],
                        "limits": {"cpu_time": 0.2}} for _ in range(4096)]

        def attacker():
            try:
                with httpx.stream("POST", server.url + "/judge/batch", json={"submissions": submissions},
                                  timeout=60) as response:
                    for _ in response.iter_lines():
                        pass
            except httpx.HTTPError:
                pass

        thread = threading.Thread(target=attacker, daemon=True)
        thread.start()
        time.sleep(2.0)  # the batch is parsed and its submissions are queued
        victim = httpx.post(server.url + "/run_code", json={"code": "print(1)", "language": "python"}, timeout=30)
        thread.join(timeout=60)
        assert victim.status_code == 200, (victim.status_code, victim.text[:300])
        assert victim.json()["run_result"]["stdout"] == "1\n"
