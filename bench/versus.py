"""judgebox against another revision of itself: per-case overhead side by side, in one run.

    python bench/versus.py --baseline REV [--candidate REV]    # the candidate defaults to HEAD

Method. Each side is a child process that imports its own judgebox from a git worktree of its revision
(both made alike in a temporary folder and removed afterwards, so neither side has the other's paths) and
keeps one ``Judge()`` with full isolation. The parent drives both in interleaved rounds
(the order rotated each round, so outside load on this shared machine hits both alike). In each round each
side judges the trivial a+b program:

- latency: Python, one case at a time, ``--cases`` times; the wall time of every call;
- CPU per case: Python and C++, one ``--cpu-cases``-case submission each, as ``judgebox bench`` measures it:
  the side's own cpuacct group (root only), which holds the judge process, its zygotes and their runs. The
  judge's CPU is that less the program's own, measured here in the same rounds: C++, the static binary
  (built once here with judgebox's flags) exec'd on the same input, its CPU from wait4; Python, the same
  code run by exec() in this process, timed with process_time.

Reported: median (and p90 of latency) per side, and candidate / baseline. Both sides' answers are checked (AC).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys, time
import judgebox
from judgebox import Case
try:
    from judgebox.tools.bench import PROGRAMS, CpuMeter, make_cases
except ImportError:  # a revision from before the tools/ layout
    from judgebox.benchmark import PROGRAMS, CpuMeter, make_cases
meter = CpuMeter().__enter__()  # before the judge: its slot groups nest in the meter's group
judge = judgebox.Judge()
case = [Case.stdio("2 3\\n", "5\\n")]
print("ready", flush=True)
for line in sys.stdin:
    what, language, count = line.split()
    if what == "latency":
        times = []
        for _ in range(int(count)):
            started = time.perf_counter()
            verdict = judge.judge(PROGRAMS[language], case, language).verdict
            times.append(time.perf_counter() - started)
            assert verdict is judgebox.Verdict.AC, verdict
        print(json.dumps(times), flush=True)
    else:
        cases = make_cases(int(count))
        cpu0 = meter.seconds()
        result = judge.judge(PROGRAMS[language], cases, language)
        assert result.passed == len(cases), (result.verdict, result.message)
        print(json.dumps((meter.seconds() - cpu0) / len(cases) if cpu0 is not None else None), flush=True)
"""
PYTHON_CODE = "a, b = map(int, input().split())\nprint(a + b)\n"
CPP_CODE = ("#include <cstdio>\nint main() { long long a, b; if (scanf(\"%lld %lld\", &a, &b) != 2) return 1;"
            " printf(\"%lld\\n\", a + b); }\n")
LANGUAGES = ("python", "cpp")
CPP_FLAGS = ("-O2", "-pipe", "-static", "-s", "-DONLINE_JUDGE")  # judgebox's (languages/catalog.py)


def side(src: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, cwd=src.parent,  # every round's identical case runs: no result cache
                               env={**os.environ, "PYTHONPATH": str(src), "JUDGEBOX_DEDUPE": "0"})
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def program_own_cpu(binary: str, count: int) -> dict[str, float]:
    """Seconds of CPU per case the a+b program itself takes, with no judge around it."""
    own = []
    for _ in range(count):
        read, write = os.pipe()
        os.write(write, b"2 3\n")
        os.close(write)
        pid = os.posix_spawn(binary, [binary], {}, file_actions=[(os.POSIX_SPAWN_DUP2, read, 0),
                                                                 (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)])
        os.close(read)
        _, status, usage = os.wait4(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        own.append(usage.ru_utime + usage.ru_stime)
    code = compile(PYTHON_CODE, "solution.py", "exec")
    started = time.process_time()
    stdin, stdout = sys.stdin, sys.stdout
    try:
        for _ in range(count):
            sys.stdin, sys.stdout = io.StringIO("2 3\n"), io.StringIO()
            exec(code, {"__name__": "__main__"})
    finally:
        sys.stdin, sys.stdout = stdin, stdout
    return {"python": (time.process_time() - started) / count, "cpp": statistics.median(own)}


def ask(process: subprocess.Popen[str], request: str) -> object:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(request + "\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the git revision to compare against")
    parser.add_argument("--candidate", default="HEAD", help="the git revision measured (commit your change first)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--cases", type=int, default=50, help="latency: Python cases per side per round")
    parser.add_argument("--cpu-cases", type=int, default=200, help="CPU: cases per submission per side per round")
    args = parser.parse_args()
    revisions = {f"candidate {args.candidate}": args.candidate, f"baseline {args.baseline}": args.baseline}
    folders = {name: Path(tempfile.mkdtemp(prefix="judgebox-versus-")) for name in revisions}
    for name, revision in revisions.items():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folders[name]), revision],
                       check=True, capture_output=True)
    sides = {}
    build = Path(tempfile.mkdtemp(prefix="judgebox-versus-cpp-"))
    try:
        (build / "sum.cpp").write_text(CPP_CODE)
        subprocess.run(["g++", "-std=c++17", *CPP_FLAGS, "-o", str(build / "sum"), str(build / "sum.cpp")],
                       check=True, capture_output=True)
        sides = {name: side(folders[name] / "src") for name in revisions}
        times: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[tuple[str, str], list[float]] = {(name, language): [] for name in sides for language in LANGUAGES}
        own: dict[str, list[float]] = {language: [] for language in LANGUAGES}
        for name in sides:  # warm-up, not measured: the build cache, the zygotes' pages
            for language in LANGUAGES:
                ask(sides[name], f"cpu {language} 20")
        names = list(sides)
        for round_ in range(args.rounds):
            for language, seconds in program_own_cpu(str(build / "sum"), 50).items():
                own[language].append(seconds)
            for name in names[round_ % 2:] + names[:round_ % 2]:
                times[name] += ask(sides[name], f"latency python {args.cases}")  # type: ignore[arg-type]
                for language in LANGUAGES:
                    per_case = ask(sides[name], f"cpu {language} {args.cpu_cases}")
                    if per_case is not None:
                        cpu[(name, language)].append(per_case)  # type: ignore[arg-type]
        figures = {name: (statistics.median(t) * 1000, statistics.quantiles(t, n=10)[-1] * 1000)
                   for name, t in times.items()}
        print(f"Python latency, one case at a time ({args.rounds} interleaved rounds):")
        for name, (median, p90) in figures.items():
            print(f"  {name:30} median {median:6.2f} ms   p90 {p90:6.2f} ms   ({len(times[name])} cases)")
        (this, _), (base, _) = figures.values()
        print(f"  candidate / baseline (median): {this / base:.3f}")
        if all(cpu.values()):
            print(f"CPU ms per case, one {args.cpu_cases}-case submission ({args.rounds} interleaved rounds, "
                  "median); judge = machine less the program's own")
            for language in LANGUAGES:
                program = statistics.median(own[language]) * 1000
                judged = {name: statistics.median(cpu[(name, language)]) * 1000 - program for name in names}
                for name in names:
                    print(f"  {language:6} {name:30} machine {judged[name] + program:6.2f}   program {program:5.2f}"
                          f"   judge {judged[name]:6.2f}")
                this, base = judged.values()
                print(f"  {language:6} judge CPU, candidate / baseline: {this / base:.3f}")
        else:
            print("CPU per case: no cpuacct group of our own (needs root and cgroup v1 cpuacct)")
    finally:
        for process in sides.values():
            process.kill()
        shutil.rmtree(build, ignore_errors=True)
        for folder in folders.values():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], capture_output=True)
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
