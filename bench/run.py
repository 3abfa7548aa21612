"""judgebox against a fresh interpreter per case: per-case latency and throughput, side by side, in one run.

Method. All contenders run the same trivial program (read two ints, print the sum) on the same cases, and every
answer is checked (judgebox: AC; baselines: exit 0 and the right sum), else the run is void. Contenders:
``judgebox.Judge()`` with full isolation (layers checked and printed), each case a fork of a warm per-core
zygote; SandboxFusion's and verl's cost model, a fresh interpreter per case by ``subprocess.run`` without
isolation, both the ``python3`` on PATH (pyenv's shim here) and Debian's ``/usr/bin/python3 -I -S`` (the
cheapest); and the latter under ``bwrap --unshare-all``, if installed. Measured per contender:

- latency: one case at a time, wall time of the whole call (``judge.judge(code, [case])``, or ``subprocess.run``
  plus the check), median and p90; for a trivial program this is the per-case overhead;
- cases/s with many in flight (judgebox: one N-case submission, and 10-case submissions from 16 threads;
  baselines: one thread per core), median over rounds;
- CPU ms/case in that phase: this process and all its descendants, from a cpuacct cgroup of our own. Outside
  load barely moves it, and cores / CPU-per-case is what an otherwise idle machine would do.

The machine is shared and noisy, so contenders are interleaved: each round runs each once, in rotated order,
so outside load hits all alike; the CPU other processes used meanwhile is printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

import judgebox
from judgebox import Case, Verdict

CODE = "a, b = map(int, input().split())\nprint(a + b)\n"
TARGET_LATENCY_MS = 3.0  # median per-case overhead (the latency of a trivial program)
TARGET_SPEEDUP = 4.0  # judgebox throughput over a fresh interpreter's
SUBMISSION_CASES, SUBMITTERS = 10, 16  # judgebox's "many submissions" mode
DEBIAN_PYTHON = "/usr/bin/python3"
CHEAPEST = [DEBIAN_PYTHON, "-I", "-S", "-c"]  # the cheapest fresh interpreter here (machine-costs.md, section 1)
BWRAP_ARGS = "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent --cap-drop ALL".split()
CORES = os.cpu_count() or 1
TICK = os.sysconf("SC_CLK_TCK")
console = Console(width=None if sys.stdout.isatty() else 150)


class WrongResult(Exception):
    """A contender gave a wrong answer: its figures would be worthless."""


@dataclass
class Contender:
    name: str
    isolation: str
    one: Callable[[Case], None] | None  # judge one case, checking it; None: no latency measurement
    many: Callable[[list[Case]], None]  # judge many cases at once, checking every one
    n_latency: int  # cases per round, one after another
    n_throughput: int  # cases per round, in flight together
    concurrency: str
    latencies: list[float] = field(default_factory=list)  # seconds
    rates: list[float] = field(default_factory=list)  # cases/s, one per round
    cpu: list[float] = field(default_factory=list)  # CPU seconds per case, one per round
    inner: list[float] = field(default_factory=list)  # judgebox: CaseResult.wall_time (fork to reap), seconds

    def run_round(self, cases: list[Case], meter: CpuMeter) -> None:
        for case in cases[: self.n_latency] if self.one else ():
            started = time.perf_counter()
            self.one(case)
            self.latencies.append(time.perf_counter() - started)
        batch = cases[: self.n_throughput]
        cpu0, started = meter.seconds(), time.perf_counter()
        self.many(batch)
        self.rates.append(len(batch) / (time.perf_counter() - started))
        if cpu0 is not None:
            self.cpu.append((meter.seconds() - cpu0) / len(batch))

    def figures(self) -> dict[str, object]:
        ms = sorted(x * 1e3 for x in self.latencies)
        return {"isolation": self.isolation, "concurrency": self.concurrency, "latency_n": len(ms),
                "latency_median_ms": statistics.median(ms) if ms else None,
                "latency_p90_ms": ms[int(0.9 * (len(ms) - 1))] if ms else None,
                "cases_per_s": statistics.median(self.rates), "cases_per_s_rounds": [round(r) for r in self.rates],
                "cpu_ms_per_case": statistics.median(self.cpu) * 1e3 if self.cpu else None}


class CpuMeter:
    """CPU seconds of this process and every descendant (judgebox's zygotes and runs; bwrap's grandchildren,
    which getrusage misses): we move into a cgroup v1 cpuacct group of our own, the judge's slot groups nest
    in it. Without root or cpuacct, CPU is not reported."""

    def __init__(self) -> None:
        self.path: str | None = None
        with open("/proc/self/cgroup") as f:
            own = next((line.split(":")[2].strip() for line in f if "cpuacct" in line.split(":")[1].split(",")), "")
        self.parent = os.path.join("/sys/fs/cgroup/cpuacct", own.lstrip("/"))
        path = os.path.join(self.parent, f"judgebox-bench-{os.getpid()}")
        try:
            os.mkdir(path)
            self.path = path
            _write(os.path.join(path, "cgroup.procs"), str(os.getpid()))
        except OSError:
            self.close()

    def seconds(self) -> float | None:
        if self.path is None:
            return None
        with open(os.path.join(self.path, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9

    def close(self) -> None:
        if self.path is not None:
            _write(os.path.join(self.parent, "cgroup.procs"), str(os.getpid()))
            for _ in range(100):  # the judge's slot groups inside may still be going away
                try:
                    os.rmdir(self.path)
                    break
                except OSError:
                    time.sleep(0.02)
        self.path = None


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def machine_busy() -> float:
    """CPU seconds all processes of the machine have used since boot (steal included), from /proc/stat."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in f.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / TICK


def judgebox_contenders(judge: judgebox.Judge, scale: float) -> list[Contender]:
    def check(cases: list[Case]) -> judgebox.JudgeResult:
        result = judge.judge(CODE, cases)
        if result.verdict is not Verdict.AC or result.passed != len(cases):
            bad = next((c for c in result.cases if c.verdict is not Verdict.AC), None)
            raise WrongResult(f"judgebox: {result.verdict.value} {result.message} {bad}")
        return result

    def one(case: Case) -> None:
        ours.inner.append(check([case]).cases[0].wall_time)

    def concurrent(cases: list[Case]) -> None:
        with ThreadPoolExecutor(SUBMITTERS) as pool:
            list(pool.map(check, [cases[i:i + SUBMISSION_CASES] for i in range(0, len(cases), SUBMISSION_CASES)]))

    slots = len(judge.pool.slots)
    ours = Contender("judgebox, 1 submission", "full", one, check, n(150, scale), n(500, scale), f"{slots} slots")
    return [ours, Contender("judgebox, many submissions", "full", None, concurrent, 0, n(500, scale),
                            f"{SUBMITTERS} × {SUBMISSION_CASES} cases")]


def fresh_contender(name: str, isolation: str, argv: list[str], n_latency: int, n_throughput: int) -> Contender:
    def one(case: Case) -> None:
        done = subprocess.run([*argv, CODE], input=case.stdin, capture_output=True, timeout=30, check=False)
        if done.returncode != 0 or done.stdout.split() != (case.expected_output or "").encode().split():
            raise WrongResult(f"{name}: exit {done.returncode}, stdout {done.stdout[:200]!r}, "
                              f"stderr {done.stderr[-500:]!r}")

    def many(cases: list[Case]) -> None:
        with ThreadPoolExecutor(CORES) as pool:
            list(pool.map(one, cases))

    return Contender(name, isolation, one, many, n_latency, n_throughput, f"{CORES} threads")


def n(count: int, scale: float) -> int:
    return max(4, round(count * scale))


def make_cases(count: int) -> list[Case]:
    rng = random.Random(1)
    pairs = [(rng.randint(-10**9, 10**9), rng.randint(-10**9, 10**9)) for _ in range(count)]
    return [Case.stdio(f"{a} {b}\n", f"{a + b}\n") for a, b in pairs]


def fmt(value: float | None, spec: str, suffix: str = "") -> str:
    return "—" if value is None else f"{value:{spec}}{suffix}"


def report(contenders: list[Contender], rounds: int, seconds: float, others: float | None) -> dict[str, object]:
    figures = {c.name: c.figures() for c in contenders}
    ours = contenders[0]
    rate, cpu = figures[ours.name]["cases_per_s"], figures[ours.name]["cpu_ms_per_case"]
    table = Table(title=f"Trivial a+b program: {rounds} interleaved rounds on {CORES} cores, {seconds:.0f} s",
                  caption="latency: one case at a time; ×: judgebox (1 submission) is this many times faster")
    for header in ("contender", "isolation", "median ms", "p90 ms", "n", "cases/s", "in flight", "CPU ms/case",
                   "× by cases/s", "× by CPU"):
        table.add_column(header, justify="left" if header in ("contender", "isolation") else "right",
                         no_wrap=header == "contender")
    for c in contenders:
        f = figures[c.name]
        f["judgebox_ratio"] = rate / f["cases_per_s"]
        f["judgebox_ratio_by_cpu"] = f["cpu_ms_per_case"] / cpu if cpu and f["cpu_ms_per_case"] else None
        ratios = [fmt(f["judgebox_ratio"], ".1f", "×"), fmt(f["judgebox_ratio_by_cpu"], ".1f", "×")]
        table.add_row(c.name, c.isolation, fmt(f["latency_median_ms"], ".2f"), fmt(f["latency_p90_ms"], ".2f"),
                      str(f["latency_n"] or "—"), f"{f['cases_per_s']:.0f}", c.concurrency,
                      fmt(f["cpu_ms_per_case"], ".2f"), *(ratios if c.isolation != "full" else ["", ""]))
    console.print(table)

    cheapest = max((c for c in contenders if c.isolation == "none"), key=lambda c: figures[c.name]["cases_per_s"])
    latency, speedup = figures[ours.name]["latency_median_ms"], figures[cheapest.name]["judgebox_ratio"]
    targets = {"median_latency_ms": latency, "latency_met": latency <= TARGET_LATENCY_MS, "speedup": speedup,
               "speedup_by_cpu": figures[cheapest.name]["judgebox_ratio_by_cpu"], "against": cheapest.name,
               "speedup_met": speedup >= TARGET_SPEEDUP, "zygote_run_wall_ms": statistics.median(ours.inner) * 1e3}
    met = {True: "[green]met[/]", False: "[red]NOT met[/]"}
    console.print(f"Target: median per-case overhead ≤ {TARGET_LATENCY_MS:g} ms: judgebox {latency:.2f} ms "
                  f"→ {met[targets['latency_met']]}")
    console.print(f"Target: throughput ≥ {TARGET_SPEEDUP:g}× the cheapest fresh interpreter's ({cheapest.name}): "
                  f"{rate:.0f} vs {figures[cheapest.name]['cases_per_s']:.0f} cases/s = {speedup:.1f}× → "
                  f"{met[targets['speedup_met']]} (by CPU per case: {fmt(targets['speedup_by_cpu'], '.1f', '×')})")
    console.print(f"judgebox per case: {latency:.2f} ms, of which the zygote's fork→reap of the run takes "
                  f"{targets['zygote_run_wall_ms']:.2f} ms (CaseResult.wall_time)"
                  + (f"; at {cpu:.2f} CPU ms per case an idle machine would give {CORES * 1e3 / cpu:.0f} cases/s."
                     if cpu else "."))
    print_noise(others, seconds)
    return {"rounds": rounds, "cores": CORES, "seconds": seconds, "others_cpu_s": others, "contenders": figures,
            "targets": targets}


def main() -> int:
    return entry(__doc__, "a ~15 s run: fewer rounds and cases", run)


def entry(doc: str, quick: str, run: Callable[[argparse.Namespace, CpuMeter], int]) -> int:
    """The command line every benchmark here shares: ``--quick``, ``--json PATH``, and a CPU meter made
    before any judge starts, so its slot groups (and the sandboxes) nest inside the meter's group."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    meter = CpuMeter()
    try:
        return run(args, meter)
    finally:
        meter.close()


def print_noise(others: float | None, seconds: float) -> None:
    if others is not None:
        console.print(f"Noise: other processes used {others:.1f} CPU s during the run, "
                      f"{100 * others / (seconds * CORES):.0f}% of the machine.")


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    rounds, scale = (3, 0.4) if args.quick else (5, 1.0)
    with judgebox.Judge() as judge:
        layers = judge.isolation()
        missing = sorted(name for name in judge.config.required_layers if not layers.get(name))
        console.print(f"judgebox isolation ({judge.config.mode} mode, Python {judge.pool.slots[0].python_version}): "
                      + ", ".join(f"{k}={v}" for k, v in layers.items()))
        if missing:
            console.print(f"[red]isolation layers missing: {', '.join(missing)}[/]")
            return 1
        path_python, bwrap = shutil.which("python3") or "python3", shutil.which("bwrap")
        console.print(f"python3 on PATH: {path_python}")
        fresh = [("fresh python3 on PATH", "none", [path_python, "-c"], 20, 80),
                 (f"fresh {DEBIAN_PYTHON} -I -S", "none", CHEAPEST, 60, 300)]
        if bwrap:
            fresh.append((f"bwrap + {DEBIAN_PYTHON} -I -S", "bwrap", [bwrap, *BWRAP_ARGS, *CHEAPEST], 40, 200))
        else:
            console.print("[yellow]bubblewrap is not installed: no bwrap row (apt-get install bubblewrap)[/]")
        contenders = judgebox_contenders(judge, scale) + [
            fresh_contender(name, isolation, argv, n(lat, scale), n(tput, scale))
            for name, isolation, argv, lat, tput in fresh]
        if meter.path is None:
            console.print("[yellow]no cgroup v1 cpuacct group of our own (needs root): CPU is not reported[/]")
        cases = make_cases(max(c.n_throughput for c in contenders))
        try:
            for c in contenders:  # warm-up, not measured: page cache, pyenv's shim, the zygotes' code cache
                c.many(cases[: 2 * CORES])
            started, busy0, cpu0 = time.perf_counter(), machine_busy(), meter.seconds()
            for r in range(rounds):
                for c in contenders[r % len(contenders):] + contenders[: r % len(contenders)]:
                    c.run_round(cases, meter)
                console.print(f"round {r + 1}/{rounds} done, {time.perf_counter() - started:.0f} s")
            seconds, busy, cpu = time.perf_counter() - started, machine_busy() - busy0, meter.seconds()
        except WrongResult as exc:
            console.print(f"[red]wrong result, the benchmark is void: {exc}[/]")
            return 1
    figures = report(contenders, rounds, seconds, None if cpu is None else max(0.0, busy - (cpu - cpu0)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**figures, "isolation": layers, "python_on_path": path_python}, f, indent=2)
        console.print(f"figures written to {args.json}")
    return 0


class Server:
    """A server (``argv`` plus ``--port``) on a free loopback port, up once ``/v1/ping`` answers; its log in a
    temporary file."""

    def __init__(self, name: str, argv: list[str]) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.name, self.url, self.log = name, f"http://127.0.0.1:{port}", tempfile.TemporaryFile()
        self.process = subprocess.Popen([*argv, "--port", str(port)], stdout=self.log, stderr=subprocess.STDOUT)
        self.deadline = time.monotonic() + 60
        while self.process.poll() is None and time.monotonic() < self.deadline:
            try:
                if httpx.get(self.url + "/v1/ping", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        self.close()
        raise RuntimeError(f"{name} did not come up (exit {self.process.returncode}):\n{self.tail()}")

    def self_tested(self) -> dict[str, Any]:
        """judgebox serve: its start-up language self-tests occupy slots, so let them finish before timing."""
        while (health := httpx.get(self.url + "/health", timeout=10).json())["languages"] == "pending":
            if time.monotonic() > self.deadline + 180:
                break
            time.sleep(0.2)
        return health

    def tail(self) -> str:
        self.log.seek(0)
        return self.log.read()[-3000:].decode(errors="replace")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.returncode not in (0, -signal.SIGTERM):
            console.print(f"[red]{self.name} exited {self.process.returncode}:[/]\n{self.tail()}")


if __name__ == "__main__":
    sys.exit(main())
