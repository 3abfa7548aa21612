"""`judgebox serve` against embedded `judgebox.Judge()`: what the HTTP layer costs, side by side, in one run.

Method. We start `judgebox serve --workers 2` on a free loopback port (default log level: one log line per
request, as deployed) and an embedded `Judge(slots=2)`, and drive both alike:

- /run_code: a hello-world program (`print("Hello, " + input() + "!")`, its own stdin per request) posted from
  1 and from 16 threads, each with its own keep-alive httpx connection; embedded, the same program through
  `judge.run_code(...)`, the judge's own /run_code path (the server's handler calls the same);
- /judge: one submission of 200 stdio cases of an a+b program per request, one request at a time; embedded,
  `judge.judge(...)` on the same cases and limits.

Every answer is checked (each /run_code's exact stdout; every case AC with the right stdout), else the run is
void. Per phase and round: each request's latency (median, p90), cases/s (= requests/s for /run_code), and CPU
per case from four meters: the process owning the judge (the server: utime+stime as in /proc/<pid>/stat, all its
threads but not the zygotes and runs, which are other processes; embedded: this process), the server's
event-loop thread alone (/proc/<pid>/task/<pid>/schedstat: HTTP, JSON, pydantic, asyncio; its other threads are the
judge's slot threads), the client (this process during server phases), and everything, sandboxes included
(run.py's cpuacct cgroup, which the server joins; needs root). Server CPU minus embedded judge CPU is what HTTP
adds. Phases take turns in rotated order each round, so outside load hits all alike.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx
from rich.table import Table

import judgebox
from judgebox import Case, Limits
from run import CORES, CpuMeter, Server, WrongResult, console, entry, fmt, machine_busy, print_noise

SLOTS = 2
HELLO = 'print("Hello, " + input() + "!")\n'
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
JUDGE_CASES = 200
JUDGE_LIMITS = {"cpu_time": 5.0, "memory_mb": 512}  # sent with each /judge request, and given to judge.judge
TARGET_SERVER_CPU_MS = 1.0  # the issue: well under 1 ms of server CPU per request


@dataclass
class Phase:
    endpoint: str  # "/run_code" or "/judge"
    path: str  # "server" or "embedded"
    concurrency: int
    requests: int  # per round
    cases: int  # per request
    call: Callable[[int], None]  # make request i and check its answer; raises WrongResult
    latencies: list[float] = field(default_factory=list)  # seconds
    rates: list[float] = field(default_factory=list)  # cases/s, one per round
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"judge": [], "loop": [], "client": [], "all": []})

    @property
    def name(self) -> str:
        return f"{self.endpoint} {self.path}, {self.concurrency} in flight"

    def run_round(self, pool: ThreadPoolExecutor, meter: CpuMeter, server_pid: int, warm_up: bool = False) -> None:
        latencies: list[float] = []
        requests = min(self.requests, 2 * self.concurrency) if warm_up else self.requests

        def worker(k: int) -> None:
            for i in range(k, requests, self.concurrency):
                started = time.perf_counter()
                self.call(i)
                latencies.append(time.perf_counter() - started)

        server0, loop0 = process_cpu(server_pid), process_cpu(server_pid, server_pid)
        own0, all0 = time.process_time(), meter.seconds()
        started = time.perf_counter()
        futures = [pool.submit(worker, k) for k in range(self.concurrency)]
        errors = [e for e in (f.exception() for f in futures) if e]  # waits for all
        seconds, cases = time.perf_counter() - started, requests * self.cases
        server, loop = process_cpu(server_pid) - server0, process_cpu(server_pid, server_pid) - loop0
        own, everything = time.process_time() - own0, meter.seconds()
        if errors:
            raise errors[0]
        if not warm_up:
            self.latencies += latencies
            self.rates.append(cases / seconds)
            self.cpu["judge"].append((server if self.path == "server" else own) / cases)
            if self.path == "server":
                self.cpu["loop"].append(loop / cases)
                self.cpu["client"].append(own / cases)
            if all0 is not None:
                self.cpu["all"].append((everything - all0) / cases)

    def figures(self) -> dict[str, object]:
        ms = sorted(x * 1e3 for x in self.latencies)
        cpu = {f"{k}_cpu_ms_per_case": statistics.median(v) * 1e3 if v else None for k, v in self.cpu.items()}
        return {"endpoint": self.endpoint, "path": self.path, "concurrency": self.concurrency,
                "cases_per_request": self.cases, "latency_n": len(ms), "latency_median_ms": statistics.median(ms),
                "latency_p90_ms": ms[int(0.9 * (len(ms) - 1))], "cases_per_s": statistics.median(self.rates),
                "cases_per_s_rounds": [round(r) for r in self.rates], **cpu}


def process_cpu(pid: int, thread: int | None = None) -> float:
    """CPU seconds (user + system) of a process, all its threads but not its children; or of one of its threads.
    The same as utime + stime in /proc/<pid>/stat, to the nanosecond rather than the 10 ms tick: the process's
    CPU-time clock (clock_getcpuclockid(3): ~pid << 3 | CPUCLOCK_SCHED), or the thread's schedstat."""
    if thread is None:
        return time.clock_gettime(~pid << 3 | 2)
    with open(f"/proc/{pid}/task/{thread}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def make_phases(server: Server, judge: judgebox.Judge, scale: float) -> tuple[list[Phase], list[httpx.Client]]:
    local, clients = threading.local(), []

    def client() -> httpx.Client:  # one keep-alive connection per client thread, reused across rounds
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=server.url, timeout=120)
            clients.append(local.client)
        return local.client

    def run_code_server(i: int) -> None:
        response = client().post("/run_code", json={"code": HELLO, "stdin": f"{i}\n", "language": "python"})
        body = response.json() if response.status_code == 200 else {}
        if body.get("status") != "Success" or body["run_result"]["stdout"] != f"Hello, {i}!\n":
            raise WrongResult(f"/run_code {i}: HTTP {response.status_code} {response.text[:500]}")

    def run_code_embedded(i: int) -> None:
        body, error = judge.run_code([{"code": HELLO, "stdin": f"{i}\n", "language": "python"}])[0]
        if error is not None or body["status"] != "Success" or body["run_result"]["stdout"] != f"Hello, {i}!\n":
            raise WrongResult(f"embedded run {i}: {error or body}")

    rng = random.Random(1)
    pairs = [(rng.randint(-10**9, 10**9), rng.randint(-10**9, 10**9)) for _ in range(JUDGE_CASES)]
    sums = [f"{a + b}\n" for a, b in pairs]
    cases = [Case.stdio(f"{a} {b}\n", s) for (a, b), s in zip(pairs, sums)]
    body = {"code": SUM, "limits": JUDGE_LIMITS, "cases": [{"stdin": c.stdin.decode(), "expected_output": s}
                                                          for c, s in zip(cases, sums)]}

    def check(what: str, verdict: str, passed: int, case_results: list[tuple[str, str]]) -> None:
        if (verdict, passed, len(case_results)) != ("AC", JUDGE_CASES, JUDGE_CASES) or any(
                v != "AC" or out != s for (v, out), s in zip(case_results, sums)):
            raise WrongResult(f"{what}: {verdict}, {passed}/{len(case_results)} passed, {case_results[:3]}")

    def judge_server(i: int) -> None:
        response = client().post("/judge", json=body)
        if response.status_code != 200:
            raise WrongResult(f"/judge: HTTP {response.status_code} {response.text[:500]}")
        result = response.json()
        check("/judge", result["verdict"], result["passed"], [(c["verdict"], c["stdout"]) for c in result["cases"]])

    def judge_embedded(i: int) -> None:
        result = judge.judge(SUM, cases, limits=Limits(**JUDGE_LIMITS))
        check("judge.judge", result.verdict.value, result.passed, [(c.verdict.value, c.stdout) for c in result.cases])

    def n(count: int) -> int:
        return max(4, round(count * scale))

    phases = []
    for concurrency, requests in ((1, n(150)), (16, n(400))):
        phases += [Phase("/run_code", "server", concurrency, requests, 1, run_code_server),
                   Phase("/run_code", "embedded", concurrency, requests, 1, run_code_embedded)]
    judges = max(1, round(3 * scale))
    phases += [Phase("/judge", "server", 1, judges, JUDGE_CASES, judge_server),
               Phase("/judge", "embedded", 1, judges, JUDGE_CASES, judge_embedded)]
    return phases, clients


def report(phases: list[Phase], rounds: int, seconds: float, others: float | None) -> dict[str, object]:
    figures = {p.name: p.figures() for p in phases}
    table = Table(title=f"judgebox serve vs embedded: {rounds} interleaved rounds on {CORES} cores, {seconds:.0f} s",
                  caption="CPU ms per case (= per request for /run_code). judge process: the server, or this process "
                          "when embedded; loop: the server's event-loop thread; client: this process (httpx) in the "
                          "server phases; all: every process, sandboxes included. ×: server/embedded cases/s")
    for header in ("endpoint", "path", "in flight", "median ms", "p90 ms", "n", "cases/s", "×",
                   "judge process", "loop", "client", "all"):
        table.add_column(header, justify="left" if header in ("endpoint", "path") else "right")
    for server, embedded in zip(phases[::2], phases[1::2]):
        s, e = figures[server.name], figures[embedded.name]
        s["rate_ratio"] = s["cases_per_s"] / e["cases_per_s"]
        s["latency_added_ms"] = s["latency_median_ms"] - e["latency_median_ms"]
        s["http_cpu_ms_per_case"] = s["judge_cpu_ms_per_case"] - e["judge_cpu_ms_per_case"]
        for p, f in ((server, s), (embedded, e)):
            table.add_row(p.endpoint, p.path, str(p.concurrency), f"{f['latency_median_ms']:.2f}",
                          f"{f['latency_p90_ms']:.2f}", str(f["latency_n"]), f"{f['cases_per_s']:.0f}",
                          fmt(f.get("rate_ratio"), ".2f", "×"), f"{f['judge_cpu_ms_per_case']:.3f}",
                          fmt(f["loop_cpu_ms_per_case"], ".3f"), fmt(f["client_cpu_ms_per_case"], ".3f"),
                          fmt(f["all_cpu_ms_per_case"], ".2f"))
    console.print(table)
    for s, e in ((figures[a.name], figures[b.name]) for a, b in zip(phases[::2], phases[1::2])):
        unit = "request" if s["endpoint"] == "/run_code" else f"{JUDGE_CASES}-case request"
        console.print(f"{s['endpoint']}, {s['concurrency']} in flight: the server adds {s['latency_added_ms']:.2f} ms "
                      f"to the median {unit} and gives {s['rate_ratio']:.2f}× the embedded cases/s. CPU per case: "
                      f"server {s['judge_cpu_ms_per_case']:.3f} ms (event loop {s['loop_cpu_ms_per_case']:.3f}, other "
                      f"threads {s['judge_cpu_ms_per_case'] - s['loop_cpu_ms_per_case']:.3f}), embedded judge "
                      f"{e['judge_cpu_ms_per_case']:.3f} ms: HTTP adds {s['http_cpu_ms_per_case']:.3f} ms")
    run_code = [figures[p.name] for p in phases[::2] if p.endpoint == "/run_code"]
    worst = max(f["judge_cpu_ms_per_case"] for f in run_code)
    targets = {"server_cpu_ms_per_request": worst, "server_cpu_met": worst < TARGET_SERVER_CPU_MS}
    met = {True: "[green]met[/]", False: "[red]NOT met[/]"}
    console.print(f"Target: server-process CPU per /run_code request < {TARGET_SERVER_CPU_MS:g} ms: "
                  + ", ".join(f"{f['judge_cpu_ms_per_case']:.3f} ms at {f['concurrency']} in flight" for f in run_code)
                  + f" → {met[targets['server_cpu_met']]}")
    print_noise(others, seconds)
    return {"rounds": rounds, "cores": CORES, "slots": SLOTS, "seconds": seconds, "others_cpu_s": others,
            "phases": figures, "targets": targets}


def main() -> int:
    return entry(__doc__, "a ~12 s run: fewer rounds and requests", run)


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    rounds, scale = (3, 0.4) if args.quick else (5, 1.0)
    server = Server("judgebox serve", [sys.executable, "-m", "judgebox.tools.cli", "serve", "--workers", str(SLOTS)])
    try:
        with judgebox.Judge(slots=SLOTS) as judge, ThreadPoolExecutor(16) as pool:
            health = httpx.get(server.url + "/health").json()
            layers = ", ".join(k for k, v in judge.isolation().items() if v)
            console.print(f"judgebox serve on {server.url} (pid {server.process.pid}): {health['status']}, "
                          f"{health['slots']} slots; embedded: {judge.slots} slots; isolation: {layers}"
                          + ("" if health["isolation"] == judge.isolation() else " [red](the server's differs)[/]"))
            if meter.path is None:
                console.print("[yellow]no cgroup v1 cpuacct group of our own (needs root): no 'all CPU'[/]")
            phases, clients = make_phases(server, judge, scale)
            try:
                for phase in phases:  # warm-up, not measured: connections, code paths, zygote caches
                    phase.run_round(pool, meter, server.process.pid, warm_up=True)
                started, busy0, cpu0 = time.perf_counter(), machine_busy(), meter.seconds()
                for r in range(rounds):
                    for phase in phases[r % len(phases):] + phases[: r % len(phases)]:
                        phase.run_round(pool, meter, server.process.pid)
                    console.print(f"round {r + 1}/{rounds} done, {time.perf_counter() - started:.0f} s")
                seconds, busy, cpu = time.perf_counter() - started, machine_busy() - busy0, meter.seconds()
            except (WrongResult, httpx.HTTPError) as exc:
                console.print(f"[red]wrong result, the benchmark is void: {exc!r}[/]\nserver log:\n{server.tail()}")
                return 1
            finally:
                for client in clients:
                    client.close()
    finally:
        server.close()
    figures = report(phases, rounds, seconds, None if cpu is None else max(0.0, busy - (cpu - cpu0)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**figures, "server_health": health}, f, indent=2)
        console.print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
