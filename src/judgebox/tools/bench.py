"""The standard benchmark (``judgebox bench``): judgebox against a fresh process per case, Python and C++.

Method. Every contender runs the same trivial program of its language (read two ints, print the sum) on the
same cases, and every answer is checked (judgebox: AC; baselines: exit 0 and the right sum), else the run is
void. Contenders per language: ``Judge()`` with full isolation, each case a fork of a warm per-core zygote
(Python) or an exec of the program built once (C++); the cost model of SandboxFusion and verl, a fresh process
per case by ``subprocess.run`` without isolation (Python: the ``python3`` on PATH and Debian's
``/usr/bin/python3 -I -S``, the cheapest; C++: the same static binary judgebox builds, built here once); and
that process under ``bwrap --unshare-all``, if installed. Measured per contender:

- latency: one case at a time, wall time of the whole call, median and p90; for a trivial program this is the
  per-case overhead;
- cases/s with many in flight (judgebox: one N-case submission, and for Python also 10-case submissions from
  16 threads; baselines: one thread per core), median over rounds;
- CPU ms/case in that phase: this process and all its descendants, from a cpuacct cgroup of our own (root
  only). Outside load barely moves it.

The machine may be shared and noisy, so contenders are interleaved: each round runs each once, in rotated
order, so outside load hits all alike; the CPU other processes used meanwhile is reported.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from judgebox.errors import IsolationUnavailable
from judgebox.judging.judge import Judge
from judgebox.languages.catalog import CPP_FLAGS
from judgebox.types import Case
from judgebox.verdicts import Verdict

PROGRAMS = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": "#include <cstdio>\nint main() { long long a, b; if (scanf(\"%lld %lld\", &a, &b) != 2) return 1;"
           " printf(\"%lld\\n\", a + b); }\n",
}
TARGET_LATENCY_MS = 3.0  # median per-case overhead of Python (the latency of a trivial program)
TARGET_SPEEDUP = 4.0  # judgebox's Python throughput over the cheapest fresh interpreter's
SUBMISSION_CASES, SUBMITTERS = 10, 16  # judgebox's "many submissions" mode
DEBIAN_PYTHON = "/usr/bin/python3"
CHEAPEST_PYTHON = [DEBIAN_PYTHON, "-I", "-S", "-c", PROGRAMS["python"]]  # the cheapest fresh interpreter here
BWRAP_ARGS = "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent --cap-drop ALL".split()
CORES = os.cpu_count() or 1
TICK = os.sysconf("SC_CLK_TCK")


class WrongResult(Exception):
    """A contender gave a wrong answer: its figures would be worthless."""


@dataclass
class Contender:
    language: str
    name: str
    isolation: str  # "full" (judgebox), "bwrap", or "none"
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
        one = self.one
        if one:
            for case in cases[: self.n_latency]:
                started = time.perf_counter()
                one(case)
                self.latencies.append(time.perf_counter() - started)
        batch = cases[: self.n_throughput]
        cpu0, started = meter.seconds(), time.perf_counter()
        self.many(batch)
        self.rates.append(len(batch) / (time.perf_counter() - started))
        if cpu0 is not None:
            self.cpu.append((meter.seconds() - cpu0) / len(batch))  # type: ignore[operator]

    def figures(self) -> dict[str, Any]:
        ms = sorted(x * 1e3 for x in self.latencies)
        return {"language": self.language, "isolation": self.isolation, "concurrency": self.concurrency,
                "latency_n": len(ms), "latency_median_ms": statistics.median(ms) if ms else None,
                "latency_p90_ms": ms[int(0.9 * (len(ms) - 1))] if ms else None,
                "cases_per_s": statistics.median(self.rates), "cases_per_s_rounds": [round(r) for r in self.rates],
                "cpu_ms_per_case": statistics.median(self.cpu) * 1e3 if self.cpu else None,
                "zygote_run_wall_ms": statistics.median(self.inner) * 1e3 if self.inner else None}


class CpuMeter:
    """CPU seconds of this process and every descendant (judgebox's zygotes and runs; bwrap's grandchildren,
    which getrusage misses): we move into a cgroup v1 cpuacct group of our own, in which the judge's slot
    groups nest when the judge starts after it. Without root or cpuacct, CPU is not reported."""

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

    def __enter__(self) -> CpuMeter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def machine_busy() -> float:
    """CPU seconds all processes of the machine have used since boot (steal included), from /proc/stat."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in f.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / TICK


def judgebox_contenders(judge: Judge, language: str, scale: float) -> list[Contender]:
    code = PROGRAMS[language]

    def check(cases: list[Case]) -> Any:
        result = judge.judge(code, cases, language)
        if result.verdict is not Verdict.AC or result.passed != len(cases):
            bad = next((c for c in result.cases if c.verdict is not Verdict.AC), None)
            raise WrongResult(f"judgebox {language}: {result.verdict.value} {result.message} {bad}")
        return result

    def one(case: Case) -> None:
        ours.inner.append(check([case]).cases[0].wall_time)

    def concurrent(cases: list[Case]) -> None:
        with ThreadPoolExecutor(SUBMITTERS) as pool:
            list(pool.map(check, [cases[i:i + SUBMISSION_CASES] for i in range(0, len(cases), SUBMISSION_CASES)]))

    slots = judge.slots
    ours = Contender(language, "judgebox, 1 submission", "full", one, check, n(150, scale), n(500, scale),
                     f"{slots} slots")
    if language != "python":
        return [ours]
    return [ours, Contender(language, "judgebox, many submissions", "full", None, concurrent, 0, n(500, scale),
                            f"{SUBMITTERS} × {SUBMISSION_CASES} cases")]


def fresh_contender(language: str, name: str, isolation: str, argv: list[str], n_latency: int,
                    n_throughput: int) -> Contender:
    def one(case: Case) -> None:
        done = subprocess.run(argv, input=case.stdin, capture_output=True, timeout=30, check=False)
        if done.returncode != 0 or done.stdout.split() != (case.expected_output or "").encode().split():
            raise WrongResult(f"{name}: exit {done.returncode}, stdout {done.stdout[:200]!r}, "
                              f"stderr {done.stderr[-500:]!r}")

    def many(cases: list[Case]) -> None:
        with ThreadPoolExecutor(CORES) as pool:
            list(pool.map(one, cases))

    return Contender(language, name, isolation, one, many, n_latency, n_throughput, f"{CORES} threads")


def baselines(folder: str, scale: float, bwrap: str | None) -> list[Contender]:
    """The fresh-process contenders; the C++ one execs the static binary judgebox's flags make, built here."""
    binary = os.path.join(folder, "sum")
    source = binary + ".cpp"
    _write(source, PROGRAMS["cpp"])
    subprocess.run(["g++", "-std=c++17", *CPP_FLAGS, "-o", binary, source], check=True, capture_output=True)
    path_python = shutil.which("python3") or "python3"
    rows = [("python", "fresh python3 on PATH", "none", [path_python, "-c", PROGRAMS["python"]], 20, 80),
            ("python", f"fresh {DEBIAN_PYTHON} -I -S", "none", CHEAPEST_PYTHON, 60, 300),
            ("cpp", "fresh static binary", "none", [binary], 60, 300)]
    if bwrap:
        rows += [("python", f"bwrap + {DEBIAN_PYTHON} -I -S", "bwrap", [bwrap, *BWRAP_ARGS, *CHEAPEST_PYTHON], 40, 200),
                 ("cpp", "bwrap + static binary", "bwrap", [bwrap, *BWRAP_ARGS, binary], 40, 200)]
    return [fresh_contender(language, name, isolation, argv, n(lat, scale), n(tput, scale))
            for language, name, isolation, argv, lat, tput in rows]


def n(count: int, scale: float) -> int:
    return max(4, round(count * scale))


def make_cases(count: int) -> list[Case]:
    rng = random.Random(1)
    pairs = [(rng.randint(-10**9, 10**9), rng.randint(-10**9, 10**9)) for _ in range(count)]
    return [Case.stdio(f"{a} {b}\n", f"{a + b}\n") for a, b in pairs]


def run(quick: bool, console: Console, meter: CpuMeter) -> dict[str, Any]:
    """The whole benchmark; ``meter`` must exist before any judge starts (its slot groups nest in it).
    Raises WrongResult when a contender answered wrong, IsolationUnavailable (a RuntimeError) when isolation
    layers are missing."""
    rounds, scale = (2, 0.1) if quick else (5, 1.0)
    with Judge(dedupe=None) as judge, tempfile.TemporaryDirectory(prefix="judgebox-bench-") as folder:
        layers = judge.isolation()
        missing = sorted(name for name in judge.config.required_layers if not layers.get(name))
        if missing:
            raise IsolationUnavailable(f"isolation layers missing: {', '.join(missing)}", frozenset(missing))
        bwrap = shutil.which("bwrap")
        if not bwrap:
            console.print("[yellow]bubblewrap is not installed: no bwrap rows (apt-get install bubblewrap)[/]")
        if meter.path is None:
            console.print("[yellow]no cgroup v1 cpuacct group of our own (needs root): CPU is not reported[/]")
        contenders = [*judgebox_contenders(judge, "python", scale), *judgebox_contenders(judge, "cpp", scale),
                      *baselines(folder, scale, bwrap)]
        cases = make_cases(max(c.n_throughput for c in contenders))
        for c in contenders:  # warm-up, not measured: page cache, the build cache, the zygotes' code cache
            c.many(cases[: 2 * CORES])
        started, busy0, cpu0 = time.perf_counter(), machine_busy(), meter.seconds()
        for r in range(rounds):
            for c in contenders[r % len(contenders):] + contenders[: r % len(contenders)]:
                c.run_round(cases, meter)
            console.print(f"round {r + 1}/{rounds} done, {time.perf_counter() - started:.0f} s")
        seconds, busy, cpu = time.perf_counter() - started, machine_busy() - busy0, meter.seconds()
    others = None if cpu is None or cpu0 is None else max(0.0, busy - (cpu - cpu0))
    return {"rounds": rounds, "cores": CORES, "seconds": seconds, "others_cpu_s": others, "isolation": layers,
            "languages": {language: _compare([c for c in contenders if c.language == language])
                          for language in PROGRAMS}}


def _compare(contenders: list[Contender]) -> dict[str, Any]:
    """One language's figures, each baseline with judgebox's ratios over it (by cases/s, and by CPU/case)."""
    figures = {c.name: c.figures() for c in contenders}
    ours = figures[contenders[0].name]
    for f in figures.values():
        f["judgebox_ratio"] = ours["cases_per_s"] / f["cases_per_s"]
        f["judgebox_ratio_by_cpu"] = (f["cpu_ms_per_case"] / ours["cpu_ms_per_case"]
                                      if ours["cpu_ms_per_case"] and f["cpu_ms_per_case"] else None)
    cheapest = max((name for name, f in figures.items() if f["isolation"] == "none"),
                   key=lambda name: figures[name]["cases_per_s"])
    return {"contenders": figures, "cheapest_baseline": cheapest,
            "median_latency_ms": ours["latency_median_ms"], "speedup": figures[cheapest]["judgebox_ratio"],
            "speedup_by_cpu": figures[cheapest]["judgebox_ratio_by_cpu"]}


def fmt(value: float | None, spec: str, suffix: str = "") -> str:
    return "—" if value is None else f"{value:{spec}}{suffix}"


def show(figures: dict[str, Any], console: Console) -> None:
    """The side-by-side table of every language, then the targets and the noise."""
    table = Table(title=f"Trivial a+b program: {figures['rounds']} interleaved rounds on {CORES} cores, "
                        f"{figures['seconds']:.0f} s",
                  caption="latency: one case at a time; ×: judgebox (1 submission) is this many times faster")
    for header in ("language", "contender", "isolation", "median ms", "p90 ms", "n", "cases/s", "in flight",
                   "CPU ms/case", "× by cases/s", "× by CPU"):
        table.add_column(header, justify="left" if header in ("language", "contender", "isolation") else "right",
                         no_wrap=header == "contender")
    for language, compared in figures["languages"].items():
        for name, f in compared["contenders"].items():
            ratios = [fmt(f["judgebox_ratio"], ".1f", "×"), fmt(f["judgebox_ratio_by_cpu"], ".1f", "×")]
            table.add_row(language, name, f["isolation"], fmt(f["latency_median_ms"], ".2f"),
                          fmt(f["latency_p90_ms"], ".2f"), str(f["latency_n"] or "—"), f"{f['cases_per_s']:.0f}",
                          f["concurrency"], fmt(f["cpu_ms_per_case"], ".2f"),
                          *(ratios if f["isolation"] != "full" else ["", ""]))
    console.print(table)
    python = figures["languages"]["python"]
    met = {True: "[green]met[/]", False: "[red]NOT met[/]"}
    console.print(f"Target: Python's median per-case overhead ≤ {TARGET_LATENCY_MS:g} ms: "
                  f"{python['median_latency_ms']:.2f} ms → {met[python['median_latency_ms'] <= TARGET_LATENCY_MS]}")
    console.print(f"Target: Python throughput ≥ {TARGET_SPEEDUP:g}× the cheapest fresh interpreter's "
                  f"({python['cheapest_baseline']}): {python['speedup']:.1f}× → "
                  f"{met[python['speedup'] >= TARGET_SPEEDUP]} "
                  f"(by CPU per case: {fmt(python['speedup_by_cpu'], '.1f', '×')})")
    cpp = figures["languages"]["cpp"]
    console.print(f"C++: median per-case overhead {cpp['median_latency_ms']:.2f} ms, {cpp['speedup']:.1f}× the "
                  f"throughput of {cpp['cheapest_baseline']} (by CPU: {fmt(cpp['speedup_by_cpu'], '.1f', '×')})")
    print_noise(figures["others_cpu_s"], figures["seconds"], console)


def print_noise(others: float | None, seconds: float, console: Console) -> None:
    if others is not None:
        console.print(f"Noise: other processes used {others:.1f} CPU s during the run, "
                      f"{100 * others / (seconds * CORES):.0f}% of the machine.")
