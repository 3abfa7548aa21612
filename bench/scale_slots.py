"""judgebox's throughput as its slots grow, the judge's memory per slot, and a model for a 64-core node.

Method. For each slot count (1, 2, ... up to twice the cores, ``--slots N`` for more), a fresh ``Judge(slots=n)``
is warmed, then judges the trivial a+b Python program (``judgebox.tools.bench.PROGRAMS``) as 64-case
submissions, 2n of them in flight from threads, for ``--seconds`` (default 6); every answer is checked. Per
slot count:

- cases/s over the timed part;
- the driver's CPU per case (this process: the judge's threads, its pool, its checking; from /proc/self/stat)
  and the sandbox side's (everything else in this benchmark's cpuacct group: zygotes, runs, the kernel work
  done for them; root only), in ms;
- the judge's memory: this process's RSS and the proportional set size (Pss, shared pages split between their
  users) of its descendants (the per-slot zygotes), in MiB, after the run.

The model. A case costs the driver ``d`` ms of one core (it is one Python process: its work is serial under the
GIL) and the sandbox side ``s`` ms spread over every core. On a node of C cores the driver saturates at 1000/d
cases/s and the sandboxes at C x 1000/s; the smaller is what saturates first. Kernel-wide costs (page-table
locks, cgroup writes) are in ``s`` as measured here: on 64 cores they may grow, which this 2-core machine
cannot show, so the model is a ceiling, and said as such.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from rich.table import Table

from judgebox.judging.judge import Judge
from judgebox.tools.bench import PROGRAMS, TICK
from judgebox.types import Case
from judgebox.verdicts import Verdict
from run import CORES, CpuMeter, console, entry

CASES_PER_SUBMISSION = 64
NODE_CORES = 64


def own_cpu() -> float:
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (this process's threads, not children)


def descendants(root: int) -> Iterator[int]:
    children: dict[int, list[int]] = {}
    for entry_ in Path("/proc").iterdir():
        if entry_.name.isdigit():
            try:
                ppid = int((entry_ / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry_.name))
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        yield pid
        stack += children.get(pid, [])


def kib(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_mib() -> tuple[float, float]:
    """(this process's RSS, its descendants' summed Pss), MiB."""
    rss = kib(Path("/proc/self/status"), "VmRSS")
    pss = sum(kib(Path(f"/proc/{pid}/smaps_rollup"), "Pss") for pid in descendants(os.getpid()))
    return rss / 1024, pss / 1024


def measure(slots: int, seconds: float, meter: CpuMeter) -> dict[str, float | None]:
    cases = [Case.stdio(f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(CASES_PER_SUBMISSION)]
    done, stop = [0], threading.Event()
    lock = threading.Lock()
    with Judge(slots=slots, dedupe=False) as judge:
        judge.judge(PROGRAMS["python"], cases[: 2 * slots])  # warm: every slot's zygote started

        def submitter() -> None:
            while not stop.is_set():
                result = judge.judge(PROGRAMS["python"], cases)
                if result.verdict is not Verdict.AC:
                    raise RuntimeError(f"a wrong result: {result.verdict} {result.message}")
                with lock:
                    done[0] += len(cases)

        threads = [threading.Thread(target=submitter) for _ in range(2 * slots)]
        cpu0, own0, started = meter.seconds(), own_cpu(), time.perf_counter()
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join()
        elapsed, cpu1, own1 = time.perf_counter() - started, meter.seconds(), own_cpu()
        rss, pss = memory_mib()
    n = done[0]
    driver = (own1 - own0) / n * 1e3
    total = None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / n * 1e3
    return {"slots": slots, "cases_per_s": n / elapsed, "driver_ms": driver,
            "sandbox_ms": None if total is None else total - driver, "rss_mib": rss, "zygotes_pss_mib": pss}


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    top = int(os.environ.get("JUDGEBOX_BENCH_SLOTS", 2 * CORES))
    counts = [1, 2] if args.quick else sorted({*range(1, top + 1)})
    seconds = 3.0 if args.quick else 6.0
    rows = []
    for slots in counts:
        rows.append(measure(slots, seconds, meter))
        row = rows[-1]
        console.print(f"{slots} slots: {row['cases_per_s']:.0f} cases/s", highlight=False)
    table = Table(title=f"throughput and memory against slots ({CORES} cores, {CASES_PER_SUBMISSION}-case "
                        "submissions of a+b in Python, 2 in flight a slot)")
    for column in ("slots", "cases/s", "driver ms/case", "sandbox ms/case", "judge RSS MiB", "zygotes Pss MiB",
                   "MiB a slot"):
        table.add_column(column, justify="right")
    for row in rows:
        sandbox = row["sandbox_ms"]
        table.add_row(str(row["slots"]), f"{row['cases_per_s']:.0f}", f"{row['driver_ms']:.2f}",
                      "—" if sandbox is None else f"{sandbox:.2f}", f"{row['rss_mib']:.0f}",
                      f"{row['zygotes_pss_mib']:.0f}", f"{(row['zygotes_pss_mib'] or 0) / row['slots']:.1f}")
    console.print(table)
    busiest = [r for r in rows if r["slots"] >= CORES] or rows
    driver = statistics.median(r["driver_ms"] for r in busiest)
    sandboxes = [r["sandbox_ms"] for r in busiest if r["sandbox_ms"] is not None]
    if sandboxes:
        sandbox = statistics.median(sandboxes)
        driver_cap, sandbox_cap = 1e3 / driver, NODE_CORES * 1e3 / sandbox
        first = "the driver (one Python process)" if driver_cap < sandbox_cap else "the sandboxes (the cores)"
        console.print(f"model for {NODE_CORES} cores: the driver saturates at {driver_cap:.0f} cases/s "
                      f"({driver:.2f} ms a case), the sandboxes at {sandbox_cap:.0f} cases/s ({sandbox:.2f} ms a "
                      f"case over {NODE_CORES} cores): {first} saturates first; more judges (processes, servers, "
                      "Ray nodes) each bring a driver of their own", highlight=False)
    else:
        console.print("[yellow]no cpuacct group of our own (needs root): the sandbox side is not measured[/]")
    if args.json:
        import json

        Path(args.json).write_text(json.dumps({"rows": rows, "driver_ms": driver}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(entry(__doc__, "slots 1 and 2 only, 3 s each", run))
