"""What a program's output costs the judge: its memory, and what it hands back to callers.

A program can make stdout, stderr and the harness's result descriptor huge at no cost to itself (ftruncate
them sparse: no byte written), flood them densely up to the cap, or leave a child to write after it exits.
The contract:

- the judge's peak memory above its baseline while it judges such a submission stays below
  ``3 * Limits.output_bytes`` (one case in flight at a time on a one-slot judge: at most each of the three
  descriptors read up to the cap) plus what it keeps of the finished cases, which is bounded separately;
- what is returned to callers is bounded by ``RETURNED_BOUND`` (1 MiB) per stream by default, below the
  output limit, with the full length (``CaseResult.stdout_length`` / ``stderr_length``) and a truncation
  flag (``stdout_truncated`` / ``stderr_truncated``) reported;
- ``/run_code`` (a real ``judgebox serve``) answers with at most ``RETURNED_BOUND`` of each stream and of
  each fetched file (``fetch_files``), whatever the run left behind, so its response stays small.

The memory is measured in a subprocess that runs a fresh ``Judge(slots=1)`` with a small output limit
(4 MiB, so the test is cheap): VmHWM from /proc/self/status, reset before each submission through
/proc/self/clear_refs, against VmRSS just before it, with glibc's mmap threshold fixed so that freed
buffers leave the RSS.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time

import httpx
import pytest

from judgebox import Case, Verdict
from support.server import Server

MiB = 1 << 20
OUTPUT_BYTES = 4 * MiB
RETURNED_BOUND = 1 * MiB
CASES = 6

# name -> (language, program). Each runs as CASES stdio cases expecting "ok" under output_bytes=OUTPUT_BYTES.
ATTACKS = {
    "sparse-over-cap": ("python", """
import os
for fd in range(1, 64):
    for size in (4 << 30, 60 << 20):
        try:
            os.ftruncate(fd, size)
            break
        except OSError:
            pass
"""),
    "sparse-under-cap": ("python", """
import os
for fd in range(1, 64):
    try:
        os.ftruncate(fd, (4 << 20) - 4096)
    except OSError:
        pass
"""),
    "sparse-result-fd-only": ("python", """
import os
os.ftruncate(3, 60 << 20)
print("ok")
"""),
    "dense-near-cap": ("python", """
import os
block = b"x" * (1 << 20)
for fd in (1, 2):
    for _ in range(3):
        os.write(fd, block)
    os.write(fd, block[:(1 << 20) - 4096])
"""),
    "stderr-flood": ("python", """
import os
print("ok", flush=True)
chunk = b"e" * 65536
while True:
    os.write(2, chunk)
"""),
    "child-after-exit": ("python", """
import os, time
if os.fork() == 0:
    time.sleep(0.02)
    for fd in (1, 2):
        try:
            os.write(fd, b"y" * (2 << 20))
            os.ftruncate(fd, 60 << 20)
        except OSError:
            pass
    time.sleep(5)
    os._exit(0)
print("ok", flush=True)
os._exit(0)
"""),
    "sparse-c": ("c", """
#include <signal.h>
#include <unistd.h>
int main(void) {
    signal(SIGXFSZ, SIG_IGN);
    for (int fd = 1; fd <= 3; fd++)
        if (ftruncate(fd, 60LL << 20) != 0) ftruncate(fd, (4 << 20) - 4096);
    return 0;
}
"""),
}

MEASURE = r'''
import gc, json, re, sys
import judgebox
from judgebox import Case, Limits

attacks, output_bytes, cases = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def status(key):
    return int(re.search(key + r":\s+(\d+) kB", open("/proc/self/status").read())[1]) * 1024


report = {}
with judgebox.Judge(slots=1) as judge:
    limits = Limits(cpu_time=2, output_bytes=output_bytes)
    for language, code in {"python": "print('ok')", "c": '#include <stdio.h>\nint main(void){ puts("ok"); }'}.items():
        for _ in range(2):  # warm: the slot's first runs, the build cache, the allocator's arenas
            assert judge.judge(code, [Case.stdio("", "ok\n")] * cases, language=language, limits=limits).verdict == "AC"
    for name, (language, code) in attacks.items():
        gc.collect()
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
        base = status("VmRSS")
        result = judge.judge(code, [Case.stdio("", "ok\n")] * cases, language=language, limits=limits)
        peak = status("VmHWM")
        report[name] = {
            "verdict": str(result.verdict), "grew": peak - base,
            "cases": [{"verdict": str(c.verdict), "stdout": len(c.stdout_raw), "stderr": len(c.stderr_raw),
                       "stdout_length": getattr(c, "stdout_length", None),
                       "stderr_length": getattr(c, "stderr_length", None),
                       "stdout_truncated": c.stdout_truncated, "stderr_truncated": c.stderr_truncated}
                      for c in result.cases]}
        del result
print(json.dumps(report))
'''


@pytest.fixture(scope="module")
def measured() -> dict:
    # A fixed mmap threshold: glibc then maps every large buffer on its own and unmaps it when freed, so
    # one attack's freed buffers cannot hide the next one's (a dynamic threshold keeps them in the heap).
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}
    run = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(ATTACKS), str(OUTPUT_BYTES), str(CASES)],
                         capture_output=True, text=True, timeout=300, check=False, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
@pytest.mark.parametrize("name", list(ATTACKS))
def test_judge_memory_stays_bounded(measured, name):
    """Peak memory above the baseline: the case in flight (three descriptors up to the cap) and what is
    kept of the cases (two streams each, at most RETURNED_BOUND)."""
    report = measured[name]
    assert report["verdict"] not in ("SE", "CE"), report
    bound = 3 * OUTPUT_BYTES + CASES * 2 * RETURNED_BOUND
    assert report["grew"] < bound, f"{name}: the judge grew {report['grew'] / MiB:.1f} MiB (bound {bound / MiB:.0f})"


@pytest.mark.parametrize("name", list(ATTACKS))
def test_returned_output_is_bounded(measured, name):
    """Callers get at most RETURNED_BOUND of each stream, whatever the program wrote."""
    for case in measured[name]["cases"]:
        assert max(case["stdout"], case["stderr"]) <= RETURNED_BOUND, f"{name}: {case}"


def test_a_cut_stream_reports_its_full_length_and_a_flag(measured):
    """A stream past RETURNED_BOUND (but under the output limit, so not OLE) comes back cut, flagged, with
    its full length: ``CaseResult.stdout_length`` / ``stderr_length`` (new API)."""
    for name, size in (("sparse-under-cap", OUTPUT_BYTES - 4096), ("dense-near-cap", OUTPUT_BYTES - 4096)):
        for case in measured[name]["cases"]:
            assert case["verdict"] == "WA", f"{name}: {case}"
            assert (case["stdout_length"], case["stderr_length"]) == (size, size), f"{name}: {case}"
            assert case["stdout_truncated"] and case["stderr_truncated"], f"{name}: {case}"
            assert case["stdout"] <= RETURNED_BOUND and case["stderr"] <= RETURNED_BOUND, f"{name}: {case}"


SPARSE_RUN = """
import os
os.ftruncate(1, 6 << 20)
os.ftruncate(2, 6 << 20)
with open("big.bin", "wb") as f:
    f.truncate(60 << 20)
"""


def test_run_code_answer_stays_small(server):
    """/run_code with sparse stdout and stderr (6 MiB each) and a sparse 60 MiB file in the work folder
    fetched back: the answer holds at most RETURNED_BOUND of each, and says it was cut."""
    response = httpx.post(server.url + "/run_code", timeout=120, json={
        "code": SPARSE_RUN, "language": "python", "fetch_files": ["big.bin"]})
    size = len(response.content)
    assert response.status_code == 200, response.text[:2000]
    body = response.json()
    assert body["status"] != "SandboxError", body["message"]
    run = body["run_result"]
    assert len(run["stdout"]) <= RETURNED_BOUND and len(run["stderr"]) <= RETURNED_BOUND, \
        f"stdout {len(run['stdout'])} chars, stderr {len(run['stderr'])} chars"
    assert run["truncated"], "the cut output is not flagged"
    fetched = body["files"].get("big.bin")
    assert fetched is None or len(base64.b64decode(fetched)) <= RETURNED_BOUND, \
        f"fetched {len(base64.b64decode(fetched))} bytes of a sparse file"
    # JSON writes a control character as \u0000: six bytes for each byte returned, at most
    assert size < 2 * 6 * RETURNED_BOUND + MiB, f"a {size / MiB:.0f} MiB answer"


# Attacks on what a program costs the judge, each reproduced before its fix: one huge token in the output (a
# byte-at-a-time scan took 8 s of judge CPU), and a sparse file fetched back from /run_code.

def test_one_huge_token_costs_the_judge_no_more_than_reading_it(judge):
    import resource

    before = resource.getrusage(resource.RUSAGE_THREAD)
    started = time.monotonic()
    case = judge.judge("import os\nos.write(1, b'a' * (60 << 20))", [Case.stdio("", "a")]).cases[0]
    after = resource.getrusage(resource.RUSAGE_THREAD)
    assert case.verdict is Verdict.WA
    # Generous (a byte-at-a-time scan took 8 s of judge CPU); this bounds the judge's own work, not a timing.
    assert after.ru_utime - before.ru_utime < 3.0, (after.ru_utime - before.ru_utime, time.monotonic() - started)


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_fetching_a_sparse_file_neither_kills_the_worker_nor_counts_as_the_runs_memory():
    """Fetched files are output returned to the caller: at most Limits.returned_output_bytes in all, and a
    file past that is left out (as a file that is not there), whatever the run's memory limit."""
    code = ("f = open('/tmp/a', 'wb'); f.truncate(60 << 20); f.close()\n"
            "open('/tmp/small', 'w').write('kept')\nprint('made')")
    with Server("--workers", "1") as server:
        for memory in (16, 256):
            answer = httpx.post(server.url + "/run_code", json={"code": code, "language": "python",
                                                                "memory_limit_MB": memory,
                                                                "fetch_files": ["small", "a"]}, timeout=120).json()
            assert answer["status"] == "Success", answer.get("message")
            assert answer["files"] == {"small": "a2VwdA=="}
