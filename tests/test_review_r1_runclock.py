"""Review (issue 10, round 1): /run_code's wall-clock ``run_timeout`` (``Limits.run_time``, counted by
``sandbox/inside/runclock.py``: real time less the run's tasks' ``run_delay``) could be stopped by the program
for almost no CPU; the clock now remembers the tasks it lost sight of, and this is the regression test.

The clock forgave, per reading, the growth of each task's ``run_delay`` since the previous reading, and a
task it did not see at the previous reading is taken as new: its whole ``run_delay`` counts. A process made
non-dumpable vanishes from the zygote's ``/proc`` (hidepid=invisible) and, made dumpable again, reappears
with all the waiting it ever did. So a program banks waiting once (a few processes queued behind each
other on one CPU for a second: well under a second of CPU), then lets those processes vanish and reappear
over and over: every reappearance was forgiven its whole bank again, and the clock stood still (measured before the fix:
4.0 s of sleep under ``run_timeout=2`` came back ``Success``, 6 runs of 6; after it, TLE at about 3.8 s:
the banking itself is real waiting, forgiven by design). The hostile
battery's ``runclock_reappear.py`` shows it through ``judge()``. On a busy machine (a fresh two-worker
``judgebox serve`` whose other slot runs the start-up self-tests) the run still finished: the clock forgave the
sum of all tasks' waiting, which a dozen tasks waking briefly make as long as the interval. It now forgives
only the most-forgiven task's wait per interval, each task at most 8 times the CPU it used in that span (so
what is forgiven is paid for out of the CPU limit): the fresh-server test below.
"""

from __future__ import annotations

from pathlib import Path

import httpx

# the hostile battery's program: banks waiting, then hides and shows its processes, and sleeps 4 s
BANK_AND_HIDE = (Path(__file__).parent / "hostile" / "runclock_reappear.py").read_text()


def run_code(server, code: str, run_timeout: float) -> dict:
    response = httpx.post(server.url + "/run_code", json={"code": code, "language": "python",
                                                          "run_timeout": run_timeout}, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_same_sleep_without_the_trick_times_out(server):
    body = run_code(server, "import time\ntime.sleep(4)\nprint('done')\n", run_timeout=2)
    assert body["run_result"]["status"] == "TimeLimitExceeded", body


def test_the_first_run_of_a_fresh_two_slot_server_is_timed_out_too():
    from conftest import Server

    with Server("--workers", "2") as fresh:
        body = run_code(fresh, BANK_AND_HIDE, run_timeout=2)
    assert body["run_result"]["status"] == "TimeLimitExceeded", body
