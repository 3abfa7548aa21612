"""Attacks on testlib's two phases of an interactive problem (``judging/interactive.py``, rule 7): the
interactor's output file (``tout``, fd 10) judged again by the problem's checker or the output checker.

Contained (regression tests): the solution cannot reach ``tout`` or the interactor's input through
``/proc/PID/fd`` or ``pidfd_getfd``; a checker's points are the case's score and no more; a file past the
output cap is WA, never SE; an interactor out of time is TLE (its checker never asked); answers with trailing
whitespace; ``/judge`` and the embedded judge agree on a checker given by ``judge(checker=...)``.

The judge's own memory: it once grew with the number of cases times the size of the output file a solution
makes the interactor write, when a checker program judged it (the outcomes waited for checker runs queued
behind the submission's remaining runs); a checker run now goes first in its group's queue.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest

import judgebox
from judgebox import Limits, Verdict
from judgebox.backends.server import ServerJudge
from judgebox.sandbox.config import SandboxConfig
from support.server import Server
from support.special_judges import HIDDEN_SUM, IN_REPOSITORY, find_testlib, hidden_sum

pytestmark = pytest.mark.slow

A_PLUS_B = {"language": "cpp", "code": (IN_REPOSITORY / "interactors" / "interactor-a-plus-b.cpp").read_text()}
A_PLUS_B_DATA = {"inputs": ["3\n1 2\n10 20\n-5 7\n"], "outputs": ["3\n30\n2\n"], "interactor": A_PLUS_B,
                 "time_limit": 5}


# A Python relay interactor (fast to build): relays a_i, writes the rest of the "!" line to tout, OK.
PY_RELAY = r'''
import sys
inp = open(sys.argv[1]).read().split()
tout = open(sys.argv[2], "w")
n = int(inp[0]); a = inp[1:1 + n]
print(n, flush=True)
while True:
    line = sys.stdin.readline()
    if not line:
        sys.stderr.write("eof"); sys.exit(2)
    p = line.split()
    if p and p[0] == "!":
        tout.write(line[2:]); tout.close()
        sys.stderr.write("relayed"); sys.exit(0)
    print(a[int(p[1]) - 1], flush=True)
'''
PY_INTERACTOR = {"language": "python", "code": PY_RELAY}
BURNING_INTERACTOR = {"language": "python", "code": PY_RELAY.replace(
    "tout.write(line[2:]); tout.close()", "tout.write(line[2:]); tout.close()\n        while True: pass")}
POINTS_CHECKER = {"language": "cpp", "code": r'''
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long j = ans.readLong(), s = ouf.readLong();
    if (s == j) quitf(_ok, "right");
    if (s - j == 1 || j - s == 1) quitp(0.5, "close");
    quitf(_wa, "far");
}
'''}




@pytest.fixture(scope="module")
def testlib_judge():
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=2) as judge:
        yield judge


def verdicts(result):
    return [case.verdict for case in result.cases]


# -- contained -----------------------------------------------------------------------------------------------

# Answers a - b, and tries every way to the interactor's files: /proc/PID/fd/{9,10} of every pid, and
# pidfd_getfd on each; any descriptor reached gets the right sums written into it. Reports what it reached.
REACH_TOUT = r'''
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
sums, reached = [], []
lines = []
for line in sys.stdin:
    a, b = map(int, line.split())
    sums.append(a + b)
    print(a - b, flush=True)
    if len(sums) == 3:
        break
text = "".join(f"{s}\n" for s in sums).encode()
fds = []
for pid in range(1, 65):
    if pid == os.getpid():
        continue
    for fd in (9, 10):
        try:
            fds.append(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR)); reached.append(f"open {pid} {fd}")
        except OSError:
            pass
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        continue
    for fd in (9, 10):
        got = libc.syscall(438, pidfd, fd, 0)
        if got >= 0:
            fds.append(got); reached.append(f"pidfd_getfd {pid} {fd}")
for fd in fds:
    try:
        os.pwrite(fd, text, 0)
    except OSError:
        pass
sys.stderr.write("REACHED " + ";".join(reached))
'''


def test_the_solution_cannot_reach_the_interactors_files(testlib_judge):
    result = testlib_judge.judge(REACH_TOUT, A_PLUS_B_DATA)
    assert verdicts(result) == [Verdict.WA], result.cases[0].message
    assert result.cases[0].stderr_raw.strip() == b"REACHED", result.cases[0].stderr_raw


def test_answers_with_trailing_whitespace(testlib_judge):
    add = "import sys\nfor line in sys.stdin:\n    a, b = map(int, line.split())\n    print(a + b, flush=True)\n"
    data = dict(A_PLUS_B_DATA, outputs=["3  \n30\t\n2\n\n\n"])
    assert verdicts(testlib_judge.judge(add, data)) == [Verdict.AC]


def test_a_checkers_points_are_the_score_and_no_more(testlib_judge):
    data = hidden_sum([1, 2, 3], [4], checker=False, interactor=PY_INTERACTOR)
    off_by_one = testlib_judge.judge(HIDDEN_SUM.replace('"!", total', '"!", total + 1'), data, checker=POINTS_CHECKER)
    assert [(c.verdict, c.points) for c in off_by_one.cases] == [(Verdict.WA, 0.5)] * 2
    assert off_by_one.score == pytest.approx(0.5)
    assert testlib_judge.judge(HIDDEN_SUM, data, checker=POINTS_CHECKER).score == 1.0


def test_the_output_file_past_the_cap_is_wa(testlib_judge):
    data = hidden_sum([1, 2], checker=False, interactor=PY_INTERACTOR)
    flood = HIDDEN_SUM.replace('print("!", total, flush=True)', 'print("!", "3" + " " * 6000, flush=True)')
    result = testlib_judge.judge(flood, data, limits=Limits(output_bytes=4096))
    assert verdicts(result) == [Verdict.WA], result.cases[0].message
    assert "output cap" in result.cases[0].message


def test_an_interactor_out_of_time_is_tle_not_the_checkers(testlib_judge):
    result = testlib_judge.judge(HIDDEN_SUM, hidden_sum([1, 2, 3], interactor=BURNING_INTERACTOR))
    assert verdicts(result) == [Verdict.TLE], result.cases[0].message


def test_judge_and_embedded_agree_on_a_checker_given_beside(testlib_judge):
    data = hidden_sum([1, 2, 3], [4], checker=False, interactor=PY_INTERACTOR)
    code = HIDDEN_SUM.replace('"!", total', '"!", total + 1')
    embedded = testlib_judge.judge(code, data, checker=POINTS_CHECKER)
    with Server("--workers", "2", env={"JUDGEBOX_TESTLIB": find_testlib()}) as server:
        with ServerJudge(server.url, timeout=120) as client:
            served = client.judge(code, data, checker=POINTS_CHECKER)
        raw = httpx.post(server.url + "/judge", json={"code": code, "language": "python", "test_cases": data,
                                                      "checker": POINTS_CHECKER}, timeout=120).json()
    assert (served.verdict, served.score) == (embedded.verdict, embedded.score) == (Verdict.WA, 0.5)
    assert (raw["verdict"], raw["score"]) == ("WA", 0.5)


# -- the judge's own memory ---------------------------------------------------------------------------------

def test_the_judges_memory_does_not_grow_with_cases_times_the_output_file(testlib_judge):
    """Each case's outcome holds the interactor's output file (up to the output cap) until its checker has
    run. The checker runs queued behind the submission's remaining runs, so every outcome waited: 24 cases
    of a 30 MB token grew the judge by ~750 MB (100 cases at the 64 MiB cap: GBs). A checker run now goes
    before its group's queued runs (``WorkerPool.submit(first=True)``): a few outcomes wait at a time."""
    flood = HIDDEN_SUM.replace('print("!", total, flush=True)',
                        'import sys\nsys.stdout.write("! " + "9" * (30 << 20) + "\\n")\nsys.stdout.flush()')
    data = hidden_sum(*[[1, 2]] * 24, time_limit=10)
    testlib_judge.judge(HIDDEN_SUM, hidden_sum([1]))  # builds both programs first

    def rss_kb() -> int:
        with open("/proc/self/status") as f:
            return int(f.read().split("VmRSS:")[1].split()[0])

    peak, done = [rss_kb()], threading.Event()
    base = peak[0]

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_kb())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        result = testlib_judge.judge(flood, data)
    finally:
        done.set()
        watcher.join()
    assert set(verdicts(result)) == {Verdict.WA}
    assert (peak[0] - base) < 400 * 1024, f"the judge grew by {(peak[0] - base) // 1024} MB"
