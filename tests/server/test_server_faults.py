"""A sandbox slot dying under ``judgebox serve`` mid-case: that case is a sandbox error (SandboxError on /run_code,
verdict SE on /judge), never WA/RE (which would turn an infrastructure fault into a wrong reward) and never a hang;
the slot is replaced and the server keeps serving.

The server gets a single slot of its own, so the killed process is certainly the one running the case. The slot's
outer process is a child of the server (``python3 -I -c <boot>``); its child is the zygote, named
``judgebox-slot``. We SIGKILL the outer one while the case sleeps, as the OOM killer or an operator might.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx
import pytest

from support.server import Server

SLEEPER = "import time\ntime.sleep(30)\nprint('woke up')\n"


@pytest.fixture(scope="module")
def one_slot():
    with Server("--workers", "1") as running:
        running.wait_for_self_tests()  # so the slot killed below is running this test's job, not a self-test
        yield running


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids += [int(k) for k in f.read().split()]
    return kids


def _name(pid: int) -> str:
    with open(f"/proc/{pid}/status") as f:
        return f.readline().split(":", 1)[1].strip()


def _slot_processes(server: Server) -> list[tuple[int, list[int]]]:
    """(outer pid, its zygote pids) of every slot: the server's children whose child is named judgebox-slot."""
    slots = []
    for kid in _children(server.process.pid):
        try:
            zygotes = [z for z in _children(kid) if _name(z) == "judgebox-slot"]
        except FileNotFoundError:
            continue
        if zygotes:
            slots.append((kid, zygotes))
    return slots


def _post_in_background(url: str, payload: dict) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def post() -> None:
        started = time.monotonic()
        response = httpx.post(url, json=payload, timeout=120)
        outcome.update(response=response, seconds=time.monotonic() - started)

    thread = threading.Thread(target=post)
    thread.start()
    return thread, outcome


def _kill_the_slot_while_busy(server: Server) -> tuple[int, list[int], float]:
    """Wait until the slot runs a case, let it settle into its sleep, SIGKILL the slot's outer process."""
    deadline = time.monotonic() + 20
    while httpx.get(server.url + "/health").json()["busy"] < 1:
        assert time.monotonic() < deadline, "the case never started"
        time.sleep(0.05)
    time.sleep(0.5)
    [(outer, zygotes)] = _slot_processes(server)
    os.kill(outer, signal.SIGKILL)
    return outer, zygotes, time.monotonic()


def _sandbox_errors(server: Server) -> float:
    """The server's count of SE cases; and no request has answered 5xx."""
    text = httpx.get(server.url + "/metrics").text
    assert not [line for line in text.splitlines()
                if line.startswith("judgebox_requests_total") and 'status="5' in line]
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("judgebox_cases_total{") and 'verdict="SE"' in line)


def _assert_replaced_and_serving(server: Server, old_outer: int, old_zygotes: list[int]) -> None:
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{z}") for z in old_zygotes):  # no orphaned zygote left behind
        assert time.monotonic() < deadline, "the killed slot's zygote outlived it"
        time.sleep(0.05)
    health = httpx.get(server.url + "/health").json()
    assert (health["slots"], health["busy"], health["status"]) == (1, 0, "ok")
    [(outer, _)] = _slot_processes(server)
    assert outer != old_outer
    for i in range(3):
        body = httpx.post(server.url + "/run_code", json={"code": f"print({i} * 7)"}, timeout=30).json()
        assert (body["status"], body["run_result"]["stdout"]) == ("Success", f"{i * 7}\n")


@pytest.mark.slow  # about 16 s in all on this busy 2-core machine
def test_killed_slot_during_run_code_is_sandbox_error(one_slot):
    errors_before = _sandbox_errors(one_slot)
    thread, outcome = _post_in_background(one_slot.url + "/run_code",
                                          {"code": SLEEPER, "language": "python", "run_timeout": 20})
    old_outer, old_zygotes, killed_at = _kill_the_slot_while_busy(one_slot)
    thread.join(timeout=60)
    assert not thread.is_alive(), "the request hung after its slot died"
    assert time.monotonic() - killed_at < 10, "the sandbox error took as long as the run would have"
    response = outcome["response"]
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "SandboxError" and body["run_result"] is None
    assert "died" in body["message"] or "lost contact" in body["message"]
    assert _sandbox_errors(one_slot) == errors_before + 1
    _assert_replaced_and_serving(one_slot, old_outer, old_zygotes)


def test_killed_slot_during_judge_is_se_for_that_case_only(one_slot):
    """Case 0 sleeps and its slot is killed: SE. Case 1, queued behind it, runs on the replacement: AC."""
    errors_before = _sandbox_errors(one_slot)
    code = "import time\nif input() == 'sleep':\n    time.sleep(30)\nprint('done')\n"
    thread, outcome = _post_in_background(one_slot.url + "/judge", {
        "code": code, "limits": {"cpu_time": 20},
        "cases": [{"stdin": "sleep", "expected_output": "done"}, {"stdin": "go", "expected_output": "done"}]})
    old_outer, old_zygotes, killed_at = _kill_the_slot_while_busy(one_slot)
    thread.join(timeout=60)
    assert not thread.is_alive(), "the request hung after its slot died"
    assert time.monotonic() - killed_at < 10
    body = outcome["response"].json()
    assert [case["verdict"] for case in body["cases"]] == ["SE", "AC"]
    assert body["verdict"] == "SE" and body["cases"][0]["message"]
    assert _sandbox_errors(one_slot) == errors_before + 1
    _assert_replaced_and_serving(one_slot, old_outer, old_zygotes)


def test_slot_killed_while_idle_costs_no_case(one_slot):
    """The job never reached the dead worker, so the replaced slot runs it: no SandboxError for it."""
    [(outer, zygotes)] = _slot_processes(one_slot)
    os.kill(outer, signal.SIGKILL)
    time.sleep(0.5)
    try:
        body = httpx.post(one_slot.url + "/run_code", json={"code": "print('next')"}, timeout=30).json()
        assert body["status"] == "Success", body["message"]
    finally:
        _assert_replaced_and_serving(one_slot, outer, zygotes)
