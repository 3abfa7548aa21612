"""Compiled languages: judgebox's compile-once artifact cache against compiling per case, side by side, in one run.

Method. One realistic stdin/stdout program per language (read n numbers, print their sum: C++ with
``#include <bits/stdc++.h>``, Java with BufferedReader), judged on N cases (C++ 100, Java 50), every case checked
(AC, else the run is void). Variants, all through the same judgebox sandbox so isolation is equal:

- judgebox: ``judge.judge(code, cases, language=...)``: compile once (C++ with the precompiled
  ``bits/stdc++.h``; Java ``javac`` + ``jar``), then N runs of the cached artifact. The source gets a
  ``// round r`` comment so each round is a cache miss, i.e. a first submission;
- cache hit: the identical source again right after: must cost no compile (the cache's hit counter goes up
  by N, misses by 0) and so only the N runs;
- compile per case (SandboxFusion's cost model): per case, ``judge.judge(code + "// round r case i", [case])``
  so the artifact cache cannot hit: a sandboxed compile (C++ still with the PCH: judgebox's own compiler
  command) and one run, from one thread per core;
- C++ only, compile per case with judgebox's g++ command *without* the PCH (SandboxFusion compiles the plain
  source): ``Judge.run_program`` with the C++ entry's ``pch_flags=()`` (a distinct source each case, so a
  cache miss), a sandboxed build and run of the artifact. It costs ~1 CPU s per case, so only a sample of
  the cases is run each round and the figures are scaled to N (marked "sampled"; so are the compile-per-case
  rows under ``--quick``).

Measured per submission of N cases: CPU seconds of the whole process tree (this process, the judge's zygotes,
compilers and runs) from run.py's own cpuacct cgroup (needs root), wall seconds, and the cache's hit/miss
deltas; medians over rounds. Variants take turns in rotated order each round, so outside load hits all
alike; the slow compile-per-case variants run only in some rounds (the table gives how many). The CPU other
processes used meanwhile is printed at the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from rich.table import Table

import judgebox
from judgebox import Case, Limits, Verdict, languages
from run import CORES, CpuMeter, WrongResult, console, entry, fmt, machine_busy, print_noise

CPP = """#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;
    cout << accumulate(a.begin(), a.end(), 0LL) << '\\n';
    return 0;
}
"""
JAVA = """import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer tokens = new StringTokenizer(in.readLine());
        long sum = 0;
        for (int i = 0; i < n; i++) sum += Long.parseLong(tokens.nextToken());
        System.out.println(sum);
    }
}
"""
TARGET_RATIO = 20.0  # C++: compile per case costs at least this many times judgebox's CPU


@dataclass
class Variant:
    language: str
    name: str
    how: str
    submit: Callable[[int], int]  # run one submission in round r, checking every case; returns cases run
    cases: int  # N: the figures are per submission of N cases
    slow: bool = False  # runs only in the slow rounds
    expect: Callable[[int, int, int], bool] = lambda ran, hits, misses: True  # cases run, cache deltas
    cpu: list[float] = field(default_factory=list)  # CPU s per submission, one per round
    wall: list[float] = field(default_factory=list)
    ran: list[int] = field(default_factory=list)  # cases run per round
    cache: list[tuple[int, int]] = field(default_factory=list)  # (hits, misses) per round

    def run_round(self, r: int, meter: CpuMeter, judge: judgebox.Judge) -> None:
        before, cpu0, started = judge.stats(), meter.seconds(), time.perf_counter()
        ran = self.submit(r)
        wall, scale = time.perf_counter() - started, self.cases / ran
        after = judge.stats()
        delta = (after.artifact_hits - before.artifact_hits, after.artifact_misses - before.artifact_misses)
        if not self.expect(ran, *delta):
            raise WrongResult(f"{self.language} {self.name}: cache hits/misses {delta} for {ran} cases")
        self.wall.append(wall * scale)
        self.ran.append(ran)
        self.cache.append(delta)
        if cpu0 is not None:
            self.cpu.append((meter.seconds() - cpu0) * scale)

    def figures(self) -> dict[str, object]:
        return {"language": self.language, "how": self.how, "cases": self.cases, "rounds": len(self.wall),
                "cases_run_per_round": self.ran, "sampled": min(self.ran) < self.cases,
                "cpu_s": statistics.median(self.cpu) if self.cpu else None, "cpu_s_rounds": self.cpu,
                "wall_s": statistics.median(self.wall), "wall_s_rounds": self.wall,
                "cache_hits_misses_rounds": self.cache}


def make_cases(count: int, seed: int) -> list[Case]:
    rng, cases = random.Random(seed), []
    for _ in range(count):
        xs = [rng.randint(-10**9, 10**9) for _ in range(rng.randint(1, 2000))]
        cases.append(Case.stdio(f"{len(xs)}\n{' '.join(map(str, xs))}\n", f"{sum(xs)}\n"))
    return cases


def checked(result: judgebox.JudgeResult, cases: int, what: str) -> None:
    if result.verdict is not Verdict.AC or result.passed != cases:
        bad = next((c for c in result.cases if c.verdict is not Verdict.AC), None)
        raise WrongResult(f"{what}: {result.verdict.value} {result.message} {bad}")


def sample(cases: list[Case], r: int, k: int) -> list[int]:
    """k case indices for round r, rotating so the rounds cover different cases."""
    return [(r * k + i) % len(cases) for i in range(k)]


def variants(judge: judgebox.Judge, language: str, code: str, cases: list[Case], per_case: int,
             no_pch: int) -> list[list[Variant]]:
    """Groups of variants; a group runs in a fixed order (the cache hit right after its first submission)."""
    n = len(cases)

    def first(r: int) -> int:
        checked(judge.judge(code + f"// round {r}\n", cases, language=language), n, f"{language} judgebox")
        return n

    def per_case_submit(r: int) -> int:
        def one(i: int) -> None:
            checked(judge.judge(code + f"// round {r} case {i}\n", [cases[i]], language=language), 1,
                    f"{language} compile per case, case {i}")
        with ThreadPoolExecutor(CORES) as pool:
            return len(list(pool.map(one, sample(cases, r, per_case))))

    spec = dataclasses.replace(languages.get(language), pch_flags=())

    def no_pch_one(r: int, i: int) -> None:
        built, out = judge.run_program(spec, f"{code}// round {r} case {i}\n", cases[i].stdin, Limits())
        if out is None:
            raise WrongResult(f"g++ without PCH: {built and (built.compile_error or built.system_error)}")
        if not out.clean_exit or out.stdout.split() != (cases[i].expected_output or "").encode().split():
            raise WrongResult(f"g++ without PCH, case {i}: exit {out.exit_code}, stdout {out.stdout[:200]!r}")

    def no_pch_submit(r: int) -> int:
        with ThreadPoolExecutor(CORES) as pool:
            return len(list(pool.map(lambda i: no_pch_one(r, i), sample(cases, r, no_pch))))

    compiler = "g++ (PCH)" if language == "cpp" else "javac + jar"
    groups = [[Variant(language, "judgebox", f"{compiler} once, {n} runs", first, n,
                       expect=lambda ran, hits, misses: misses == 1 and hits == ran - 1),
               Variant(language, "cache hit", "identical resubmission", first, n,
                       expect=lambda ran, hits, misses: misses == 0 and hits == ran)],
              [Variant(language, "compile per case", f"{compiler} + run, per case",
                       per_case_submit, n, slow=True, expect=lambda ran, hits, misses: misses == ran)]]
    if language == "cpp" and no_pch:
        groups.append([Variant(language, "compile per case, no PCH", "g++ + run, per case",
                               no_pch_submit, n, slow=True)])
    return groups


def report(groups: list[list[Variant]], rounds: int, seconds: float, others: float | None) -> dict[str, object]:
    table = Table(title=f"Compile once vs compile per case: {rounds} interleaved rounds on {CORES} cores, "
                        f"{seconds:.0f} s",
                  caption=f"per submission of N cases, medians over rounds; ×: this many times judgebox's cost "
                          f"(same language); *: sampled, scaled up to N; per case: {CORES} threads")
    for header in ("language", "variant", "how", "rounds", "cases run", "CPU s", "wall s", "× CPU", "× wall",
                   "hits/misses"):
        table.add_column(header, justify="left" if header in ("language", "variant", "how") else "right")
    figures: dict[str, dict[str, object]] = {}
    for v in (v for group in groups for v in group):
        f = figures[f"{v.language} {v.name}"] = v.figures()
        ours = figures[f"{v.language} judgebox"]
        f["ratio_cpu"] = f["cpu_s"] / ours["cpu_s"] if f["cpu_s"] and ours["cpu_s"] else None
        f["ratio_wall"] = f["wall_s"] / ours["wall_s"]
        ran = f"{min(v.ran)}/{v.cases}" + ("*" if f["sampled"] else "")
        table.add_row(v.language, v.name, v.how, str(len(v.wall)), ran, fmt(f["cpu_s"], ".2f"),
                      f"{f['wall_s']:.2f}", fmt(f["ratio_cpu"], ".2f", "×"), f"{f['ratio_wall']:.2f}×",
                      "{}/{}".format(*v.cache[-1]) if v.name != "compile per case, no PCH" else "—")
    console.print(table)

    met = {True: "[green]met[/]", False: "[red]NOT met[/]"}
    summary: dict[str, object] = {}
    for language in dict.fromkeys(v.language for group in groups for v in group):
        ours, hit, per = (figures[f"{language} {name}"] for name in ("judgebox", "cache hit", "compile per case"))
        n = ours["cases"]
        s = summary[language] = {"ratio_cpu": per["ratio_cpu"], "ratio_wall": per["ratio_wall"]}
        if ours["cpu_s"] and hit["cpu_s"] and per["cpu_s"]:
            s["compile_cpu_s_first_minus_hit"] = ours["cpu_s"] - hit["cpu_s"]
            s["compile_plus_run_cpu_s_per_case"] = per["cpu_s"] / n
            s["run_cpu_ms_per_case"] = 1e3 * hit["cpu_s"] / n
            console.print(
                f"{language}: compile per case costs {per['cpu_s']:.1f} CPU s per submission of {n} cases, "
                f"judgebox {ours['cpu_s']:.2f} → {per['ratio_cpu']:.1f}× by CPU, {per['ratio_wall']:.1f}× by wall.")
            console.print(
                f"{language} cache hit: +{n} hits, +0 misses in every round; {hit['cpu_s']:.2f} CPU s "
                f"({s['run_cpu_ms_per_case']:.1f} ms per run), {s['compile_cpu_s_first_minus_hit']:.2f} s less than "
                f"the first submission: one compile (compile per case implies "
                f"{s['compile_plus_run_cpu_s_per_case'] - hit['cpu_s'] / n:.2f} s per compile).")
        if language == "cpp" and per["ratio_cpu"]:
            s["target_met"] = per["ratio_cpu"] >= TARGET_RATIO
            console.print(f"Target: C++ compile per case ≥ {TARGET_RATIO:g}× judgebox's CPU: "
                          f"{per['ratio_cpu']:.1f}× → {met[s['target_met']]}")
    print_noise(others, seconds)
    return {"rounds": rounds, "cores": CORES, "seconds": seconds, "others_cpu_s": others, "variants": figures,
            "summary": summary}


def main() -> int:
    return entry(__doc__, "a ~25 s run: fewer rounds, compile per case sampled", run)


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    # rounds; the slow variants run every `stride` rounds on `share` of the cases; no-PCH C++ cases per round
    rounds, stride, share, no_pch = (2, 2, 0.25, 4) if args.quick else (6, 3, 1.0, 6)
    cpp_cases, java_cases = make_cases(100, 1), make_cases(50, 2)
    with judgebox.Judge() as judge:
        layers = judge.isolation()
        console.print(f"judgebox isolation ({judge.config.mode} mode): " + ", ".join(f"{k}={v}" for k, v in
                                                                                     layers.items()))
        if meter.path is None:
            console.print("[yellow]no cgroup v1 cpuacct group of our own (needs root): CPU is not reported[/]")
        groups = (variants(judge, "cpp", CPP, cpp_cases, round(share * len(cpp_cases)), no_pch)
                  + variants(judge, "java", JAVA, java_cases, round(share * len(java_cases)), 0))
        try:
            for group in groups:  # warm-up, not measured: the PCH, page cache, the JVM's class data
                for v in group:
                    if not v.slow:
                        v.submit(-1)
            started, busy0, cpu0 = time.perf_counter(), machine_busy(), meter.seconds()
            for r in range(rounds):
                for group in groups[r % len(groups):] + groups[: r % len(groups)]:
                    for v in group:
                        if r % stride == 0 or not v.slow:
                            v.run_round(r, meter, judge)
                console.print(f"round {r + 1}/{rounds} done, {time.perf_counter() - started:.0f} s")
            seconds, busy, cpu = time.perf_counter() - started, machine_busy() - busy0, meter.seconds()
        except WrongResult as exc:
            console.print(f"[red]wrong result, the benchmark is void: {exc}[/]")
            return 1
    figures = report(groups, rounds, seconds, None if cpu is None else max(0.0, busy - (cpu - cpu0)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**figures, "isolation": layers}, f, indent=2)
        console.print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
