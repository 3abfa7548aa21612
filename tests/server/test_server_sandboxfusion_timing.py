"""SandboxFusion's ``run_timeout`` is wall-clock: a program that sleeps or blocks past it has timed out.

judgebox enforces it as the run-time limit (``Limits.run_time``): real time less the time the run's tasks
waited for a CPU, so a busy machine does not time out a correct program. Checked against a real
``judgebox serve`` (SandboxFusion's own runner tests: a sleeper under ``run_timeout=0.1`` comes back
``Failed`` / ``TimeLimitExceeded``), and through ``judge()``, whose own CPU-time semantics stay as they are.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import sandbox_fusion
from sandbox_fusion import CommandRunStatus, RunCodeRequest, RunStatus

from judgebox import Case, Limits, Verdict
from judgebox.judging import run_code as translate
from judgebox.wire.schemas import RunCodeRequest as ServerRequest


def _run_code(server, code: str, language: str = "python", **fields) -> dict:
    response = httpx.post(server.url + "/run_code", json={"code": code, "language": language, **fields}, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("language", "code"), [("python", "import time; time.sleep(0.5)"), ("bash", "sleep 0.5")])
def test_a_sleeper_past_run_timeout_is_a_timeout(server, language, code):
    body = _run_code(server, code, language, run_timeout=0.2)
    assert body["status"] == "Failed", body
    assert body["run_result"]["status"] == "TimeLimitExceeded" and body["run_result"]["verdict"] == "TLE", body
    assert body["run_result"]["return_code"] is None


def test_the_official_client_sees_the_sleeper_time_out(server):
    before = (sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT)
    sandbox_fusion.set_endpoint(server.url)
    try:
        result = sandbox_fusion.run_code(RunCodeRequest(code="import time; time.sleep(0.2)", language="python",
                                                        run_timeout=0.1), max_attempts=1, client_timeout=60)
    finally:
        sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT = before
    assert result.status == RunStatus.Failed
    assert result.run_result.status == CommandRunStatus.TimeLimitExceeded


def test_a_short_sleep_inside_run_timeout_finishes(server):
    body = _run_code(server, "import time; time.sleep(0.05); print('done')", run_timeout=5)
    assert body["status"] == "Success", body
    assert (body["run_result"]["status"], body["run_result"]["stdout"]) == ("Finished", "done\n")


def test_a_program_blocked_forever_times_out_on_run_time(judge):
    """A read that never returns (the write end is its own) is stopped by the run-time limit, not left to the
    wall-clock backstop."""
    code = "import os\nr, w = os.pipe()\nos.read(r, 1)\n"
    result = judge.judge(code, [Case.stdio("", "")], limits=Limits(cpu_time=5, run_time=0.3, wall_time=30))
    assert result.verdict is Verdict.TLE
    assert "run time" in result.cases[0].message


PARALLEL = """\
import os, time
def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
children = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        burn(0.7)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print("done")
"""


def test_run_timeout_is_not_a_cpu_limit(judge):
    """Two processes burning 0.7 s of CPU each use more CPU (1.4 s) than the run-time limit (1 s) and less run
    time: they finish, as under SandboxFusion's wall clock. /run_code leaves CPU to the backstop's time."""
    result = judge.judge(PARALLEL, [Case.stdio("", "done\n")], limits=Limits(cpu_time=30, run_time=1.0, wall_time=30))
    assert result.verdict is Verdict.AC, result.cases[0].message
    assert result.cases[0].cpu_time > 1.0
    limits = translate.run_code_limits(ServerRequest(code="print(1)", run_timeout=1.0), 512, 1 << 20)
    assert limits.run_time == 1.0 and limits.cpu_time >= limits.wall_backstop > limits.run_time


BURN = """\
import time
end = time.process_time() + 0.6
while time.process_time() < end:
    pass
print("done")
"""
HOG = "while True:\n    pass\n"


def test_a_busy_machine_does_not_time_out_a_correct_program(judge):
    """0.6 s of CPU under a 1 s run-time limit while eight host processes keep both cores busy: the run takes
    longer than 1 s of real time (else the machine was not busy and the test says nothing) and still passes,
    because its time in the run queue is not counted. On a plain wall clock it would be TLE."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(8)]
    try:
        result = judge.judge(BURN, [Case.stdio("", "done\n")], limits=Limits(cpu_time=10, run_time=1.0, wall_time=30))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    case = result.cases[0]
    if case.wall_time <= 1.0:
        pytest.skip(f"the hogs did not slow the run ({case.wall_time:.2f} s real time)")
    assert result.verdict is Verdict.AC, (case.message, case.wall_time, case.cpu_time)


def test_judge_keeps_cpu_time_semantics(judge, server):
    """judge() and /judge decide TLE on CPU time: a program that sleeps longer than its CPU limit passes."""
    code = "import time\ntime.sleep(0.5)\nprint(1)\n"
    result = judge.judge(code, [Case.stdio("", "1\n")], limits=Limits(cpu_time=0.2))
    assert result.verdict is Verdict.AC, result.cases[0].message
    response = httpx.post(server.url + "/judge", json={"code": code, "cases": [{"stdin": "", "expected_output": "1"}],
                                                       "limits": {"cpu_time": 0.2}}, timeout=60)
    assert response.status_code == 200 and response.json()["verdict"] == "AC", response.text
    # /judge's limits are every field of Limits: a run-time limit is on only when asked for, and then binds
    timed = httpx.post(server.url + "/judge", json={"code": code, "cases": [{"stdin": "", "expected_output": "1"}],
                                                    "limits": {"cpu_time": 1, "run_time": 0.1}}, timeout=60)
    assert timed.status_code == 200 and timed.json()["verdict"] == "TLE", timed.text


# /run_code's wall-clock ``run_timeout`` (``Limits.run_time``, counted by ``sandbox/inside/runclock.py``: real time
# less the run's tasks' ``run_delay``) could be stopped by the program for almost no CPU; the clock now remembers the
# tasks it lost sight of, and this is the regression test.
#
# The clock forgave, per reading, the growth of each task's ``run_delay`` since the previous reading, and a task it
# did not see at the previous reading is taken as new: its whole ``run_delay`` counts. A process made non-dumpable
# vanishes from the zygote's ``/proc`` (hidepid=invisible) and, made dumpable again, reappears with all the waiting it
# ever did. So a program banks waiting once (a few processes queued behind each other on one CPU for a second: well
# under a second of CPU), then lets those processes vanish and reappear over and over: every reappearance was forgiven
# its whole bank again, and the clock stood still (measured before the fix: 4.0 s of sleep under ``run_timeout=2``
# came back ``Success``, 6 runs of 6; after it, TLE at about 3.8 s: the banking itself is real waiting, forgiven by
# design). The hostile battery's ``runclock_reappear.py`` shows it through ``judge()``. On a busy machine (a fresh
# two-worker ``judgebox serve`` whose other slot runs the start-up self-tests) the run still finished: the clock
# forgave the sum of all tasks' waiting, which a dozen tasks waking briefly make as long as the interval. It now
# forgives only the most-forgiven task's wait per interval, each task at most 8 times the CPU it used in that span (so
# what is forgiven is paid for out of the CPU limit): the fresh-server test below.

# the hostile battery's program: banks waiting, then hides and shows its processes, and sleeps 4 s
HOSTILE = Path(__file__).resolve().parents[1] / "adversarial" / "sandbox" / "hostile"
BANK_AND_HIDE = (HOSTILE / "runclock_reappear.py").read_text()


def run_code(server, code: str, run_timeout: float) -> dict:
    response = httpx.post(server.url + "/run_code", json={"code": code, "language": "python",
                                                          "run_timeout": run_timeout}, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_same_sleep_without_the_trick_times_out(server):
    body = run_code(server, "import time\ntime.sleep(4)\nprint('done')\n", run_timeout=2)
    assert body["run_result"]["status"] == "TimeLimitExceeded", body


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
def test_the_first_run_of_a_fresh_two_slot_server_is_timed_out_too():
    from support.server import Server

    with Server("--workers", "2") as fresh:
        body = run_code(fresh, BANK_AND_HIDE, run_timeout=2)
    assert body["run_result"]["status"] == "TimeLimitExceeded", body
