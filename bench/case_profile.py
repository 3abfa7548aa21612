"""Where one case's CPU goes: judge side against sandbox side, page faults, syscalls, and the per-case steps.

    python bench/case_profile.py [--cases 200] [--rounds 3] [--no-strace]

One ``Judge(slots=1)`` with full isolation judges the trivial a+b program (Python: a fork of the warm
zygote; C++: an exec of the static binary built once) as one N-case submission, Python and C++ in
interleaved rounds. Every figure is per case, the median over rounds; each row says where it is read, so
a reader can check it:

- CPU: ``judge process`` is getrusage(RUSAGE_SELF) of this process (the caller's thread, the slot's thread,
  the judge's own work); ``slot (zygote + runs)`` is the slot's cpuacct group (its outer process, the zygote
  and every run); ``run's own`` is what the zygote reports as the case's CPU (CaseResult.cpu_time), which
  includes the run's judge code before its exec or its program; ``zygote`` is the slot less the runs.
- page faults: minflt of this process; the zygote's own minflt and cminflt (its reaped runs), from
  ``/proc/<zygote>/stat`` (fields 10 and 11).
- syscalls: ``strace -f -c`` attached to the zygote (following its runs) and to this process's threads for
  one more submission, per case by name (strace slows the runs down; the counts are what is meant).
- steps: the zygote's per-case steps timed here, in this process, on the same code (``judgebox.sandbox.
  inside``) and on a slot's real cgroup files: cgroup writes and reads, the wipe of an empty work folder,
  the run clock's /proc reads, request and reply encoding, the judge's memfds and socket hand-off.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from judgebox.judging.judge import Judge
from judgebox.sandbox.inside import protocol, runclock
from judgebox.sandbox.inside.accounting import CgroupAccounting
from judgebox.sandbox.inside.zygote import _empty_folder
from judgebox.sandbox.slot import Slot, _memfd, _run_limits
from judgebox.tools.bench import PROGRAMS, make_cases
from judgebox.types import Limits

LANGUAGES = ("python", "cpp")


def zygote_pid(slot: Slot) -> int:
    """The zygote: the slot's outer process's only child (init of the slot's pid namespace)."""
    outer = slot.pid
    with open(f"/proc/{outer}/task/{outer}/children") as f:
        return int(f.read().split()[0])


def proc_faults(pid: int) -> tuple[int, int]:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[7]), int(fields[8])  # minflt, cminflt


def slot_cpu(slot: Slot) -> float:
    assert slot._cgroups is not None
    hierarchy, group = slot._cgroups.accounting["cpu"]
    if hierarchy == 1:
        with open(os.path.join(group, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9
    with open(os.path.join(group, "cpu.stat")) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("usage_usec")) / 1e6


def own_cpu() -> tuple[float, int]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_minflt


def measure(judge: Judge, language: str, cases: list, into: dict[str, list[float]]) -> None:
    slot = judge._pool.slots[0]
    zygote = zygote_pid(slot)
    (z0, c0), (j0, f0), s0 = proc_faults(zygote), own_cpu(), slot_cpu(slot)
    result = judge.judge(PROGRAMS[language], cases, language)
    (z1, c1), (j1, f1), s1 = proc_faults(zygote), own_cpu(), slot_cpu(slot)
    if result.passed != len(cases):
        raise SystemExit(f"{language}: not every case passed: {result.verdict} {result.message}")
    n = len(cases)
    runs = sum(c.cpu_time for c in result.cases)
    rows = {"CPU ms: judge process (getrusage self)": (j1 - j0) / n * 1e3,
            "CPU ms: slot, zygote + runs (slot cpuacct)": (s1 - s0) / n * 1e3,
            "CPU ms: run's own (CaseResult.cpu_time)": runs / n * 1e3,
            "CPU ms: zygote (slot less runs)": (s1 - s0 - runs) / n * 1e3,
            "CPU ms: judge + slot": (j1 - j0 + s1 - s0) / n * 1e3,
            "faults: judge process (minflt)": (f1 - f0) / n,
            "faults: zygote (its minflt)": (z1 - z0) / n,
            "faults: runs (zygote's cminflt)": (c1 - c0) / n}
    for name, value in rows.items():
        into.setdefault(name, []).append(value)


def strace_counts(judge: Judge, language: str, cases: list) -> tuple[dict[str, float], dict[str, float]]:
    """Syscalls per case by name: the zygote and its runs, and this process's threads."""
    slot = judge._pool.slots[0]
    counts = []
    with tempfile.TemporaryDirectory() as folder:
        targets = {"sandbox": [str(zygote_pid(slot))], "judge": os.listdir("/proc/self/task")}
        tracers = []
        for name, pids in targets.items():
            out = os.path.join(folder, name)
            argv = ["strace", "-f", "-c", "-U", "name,calls", "-o", out]
            for pid in pids:
                argv += ["-p", pid]
            tracers.append((subprocess.Popen(argv, stderr=subprocess.DEVNULL), out))
        time.sleep(1.0)  # attached
        judge.judge(PROGRAMS[language], cases, language)
        for tracer, out in tracers:
            tracer.terminate()
            tracer.wait()
            counts.append(_strace_table(out, len(cases)))
    return counts[0], counts[1]


def _strace_table(path: str, n: int) -> dict[str, float]:
    table: dict[str, float] = {}
    with open(path) as f:
        for line in f:
            match = re.match(r"\s*(\w+)\s+(\d+)\s*$", line)
            if match and match.group(1) != "total":
                table[match.group(1)] = int(match.group(2)) / n
    return table


def timed(step: Callable[[], Any], repeat: int = 300) -> float:
    """Median µs of one call of ``step``."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def steps(slot: Slot) -> dict[str, float]:
    """The zygote's (and the judge's) per-case steps, timed here on the same code."""
    assert slot._cgroups is not None
    limits = Limits()
    run_limits = _run_limits(limits)
    accounting = CgroupAccounting(slot._cgroups.accounting)
    results: dict[str, float] = {}
    results["cgroups: prepare (limits, peak reset)"] = timed(lambda: accounting.prepare(run_limits))
    results["cgroups: cpu read (x2 per case + 1 per wake-up)"] = timed(accounting.cpu_ns)
    results["cgroups: memory peak + OOM events"] = timed(lambda: (accounting.memory_peak(), accounting.oom_killed()))
    with tempfile.TemporaryDirectory() as folder:
        results["wipe: empty work folder (one folder)"] = timed(lambda: _empty_folder(folder))
    child = subprocess.Popen(["sleep", "5"])
    clock = runclock.RunClock(child.pid, time.monotonic(), whole_namespace=False)
    results["run clock: start + one advance (one task)"] = timed(
        lambda: runclock.RunClock(child.pid, time.monotonic(), False).advance(time.monotonic()))
    del clock
    child.kill()
    child.wait()
    fds = {name: _memfd(name) for name in protocol.EVERY_RUN_FDS}
    request = protocol.RunRequest(protocol.RunKind.COMMAND, run_limits, tuple(fds), argv=("/proc/self/fd/5",),
                                  env={"PATH": "/usr/bin:/bin"})
    wire = protocol.json.dumps(request.to_wire())
    results["encoding: request to_wire + dumps (judge)"] = timed(lambda: protocol.json.dumps(request.to_wire()))
    results["encoding: request loads + from_wire (zygote)"] = timed(
        lambda: protocol.RunRequest.from_wire(protocol.json.loads(wire)))
    reply = protocol.RunReply.wire(wall=0.001, cpu=0.001, memory=1 << 20, exit_code=0, started=True)
    text = protocol.json.dumps(reply)
    results["encoding: reply wire + dumps (zygote)"] = timed(lambda: protocol.json.dumps(protocol.RunReply.wire(
        wall=0.001, cpu=0.001, memory=1 << 20, exit_code=0, started=True)))
    results["encoding: reply loads + from_wire (judge)"] = timed(
        lambda: protocol.RunReply.from_wire(protocol.json.loads(text)))

    def memfds() -> None:
        for name in (*protocol.EVERY_RUN_FDS, protocol.FdName.TOKEN):
            os.close(_memfd(name, b"1 2\n"))
    results["judge: the case's memfds (create, write, close)"] = timed(memfds)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)

    def hand_off() -> None:
        protocol.send(ours, request.to_wire(), list(fds.values()))
        _, got = protocol.recv(theirs)
        for fd in got:
            os.close(fd)
    results["socket: one message with 4 fds, send + recv"] = timed(hand_off)
    for fd in fds.values():
        os.close(fd)
    ours.close()
    theirs.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200, help="cases per submission")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-strace", action="store_true", help="skip the syscall counts")
    args = parser.parse_args()
    os.environ.setdefault("JUDGEBOX_DEDUPE", "0")
    cases = make_cases(args.cases)
    figures: dict[str, dict[str, list[float]]] = {language: {} for language in LANGUAGES}
    with Judge(dedupe=None, slots=1) as judge:
        slot = judge._pool.slots[0]
        if slot._cgroups is None or "cpu" not in slot._cgroups.accounting:
            print("this profile needs the slot's cpu accounting group (root, or a delegated cgroup)")
            return 1
        for language in LANGUAGES:  # warm-up: the build cache, the zygote's pages
            judge.judge(PROGRAMS[language], cases[:20], language)
        for round_ in range(args.rounds):
            for language in LANGUAGES[round_ % 2:] + LANGUAGES[: round_ % 2]:
                measure(judge, language, cases, figures[language])
        print(f"One case of the trivial a+b program, per case: median of {args.rounds} rounds of "
              f"{args.cases} cases, 1 slot")
        print(f"{'':48}" + "".join(f"{language:>12}" for language in LANGUAGES))
        for name in figures["python"]:
            print(f"{name:48}" + "".join(f"{statistics.median(figures[lang][name]):12.2f}" for lang in LANGUAGES))
        if not args.no_strace:
            traced = {language: strace_counts(judge, language, cases[:100]) for language in LANGUAGES}
            for side, index in (("sandbox (zygote + runs)", 0), ("judge process", 1)):
                names = sorted({name for lang in LANGUAGES for name in traced[lang][index]},
                               key=lambda name: -max(traced[lang][index].get(name, 0) for lang in LANGUAGES))
                totals = [sum(traced[lang][index].values()) for lang in LANGUAGES]
                print(f"\nsyscalls per case, {side} (strace -f -c)" + " " * 8
                      + "".join(f"{total:12.1f}" for total in totals))
                for name in names:
                    values = [traced[lang][index].get(name, 0.0) for lang in LANGUAGES]
                    if max(values) >= 0.5:
                        print(f"  {name:46}" + "".join(f"{value:12.1f}" for value in values))
        print("\nper-case steps, timed here on the same code (µs, median of 300)")
        for name, value in steps(slot).items():
            print(f"  {name:58}{value:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
