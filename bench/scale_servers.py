"""Several `judgebox serve` behind one balanced client against one server: throughput, and what balancing costs.

Method. We start five servers on free loopback ports: one with one slot, three with one slot each (the
balanced trio: three slots in all), and one with three slots (the same slots as the trio, in one process).
Each contender gets the same work from 12 threads through one judgebox.client.Client: submissions of an a+b
program with 20 stdio cases each (a GRPO sample's tests) as /judge requests, every answer checked (AC with
every case's sum), else the run is void. Contenders take turns in rotated order in interleaved rounds, so
outside load hits all alike; we report per contender the median cases/s over rounds and CPU ms per case of
everything (servers, sandboxes and client: run.py's cpuacct group, which the servers join; needs root), and
the ratios of the trio to one server with one slot and to one server with its three slots.

Balancing overhead is measured twice: the client's pick itself (lease and give back an endpoint of a
three-endpoint pool, µs per request, in a loop), and end to end: one-case /judge requests one at a time to
the three-slot server through Client(url) and through Client([url, url, url]) (three endpoints that are the
same server: the same work, only the balancing differs), the difference of their median latencies and of
the client's CPU per request.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from rich.table import Table

from judgebox.client import Client
from judgebox.client.balance import Pool
from run import CORES, CpuMeter, Server, WrongResult, console, entry, fmt, machine_busy, print_noise

SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
CASES = 20
THREADS = 12
LIMITS = {"cpu_time": 5.0, "memory_mb": 256}
CONTENDERS = {"1 server, 1 slot": [1], "3 servers, 1 slot each": [1, 1, 1], "1 server, 3 slots": [3]}


def submission(rng: random.Random, cases: int) -> tuple[dict, list[str]]:
    pairs = [(rng.randint(-10**9, 10**9), rng.randint(-10**9, 10**9)) for _ in range(cases)]
    sums = [f"{a + b}\n" for a, b in pairs]
    return {"code": SUM, "limits": LIMITS,
            "cases": [{"stdin": f"{a} {b}\n", "expected_output": s} for (a, b), s in zip(pairs, sums)]}, sums


def judged(client: Client, body: dict, sums: list[str], tag: str) -> None:
    """Judge and check; ``tag`` (a comment) makes every request a program of its own, so that no server's
    cache of results recently judged answers it without judging."""
    reply = client.judge(f"{body['code']}# {tag}\n", cases=body["cases"], limits=body["limits"])
    if reply.verdict != "AC" or [c.stdout for c in reply.cases] != sums:
        raise WrongResult(f"{reply.verdict}, {reply.passed}/{len(sums)} passed: {reply.message[:300]}")


def start(slots: int) -> Server:
    server = Server(f"judgebox serve --workers {slots}",
                    [sys.executable, "-m", "judgebox.tools.cli", "serve", "--workers", str(slots),
                     "--log-level", "warning"])
    server.self_tested()
    return server


def throughput(clients: dict[str, Client], rounds: int, requests: int, meter: CpuMeter) -> dict[str, dict]:
    rng = random.Random(7)
    work = [submission(rng, CASES) for _ in range(requests)]
    rates: dict[str, list[float]] = {name: [] for name in clients}
    cpu: dict[str, list[float]] = {name: [] for name in clients}
    names = list(clients)
    with ThreadPoolExecutor(THREADS) as pool:
        for name, client in clients.items():  # warm-up: connections, the servers' first runs
            warm = work[: 2 * THREADS]
            list(pool.map(judged, [client] * len(warm), *zip(*warm), [f"warm-up {name} {i}" for i in range(len(warm))]))
        for r in range(rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                tags = [f"round {r} {name} {i}" for i in range(requests)]
                cpu0, started = meter.seconds(), time.perf_counter()
                list(pool.map(judged, [clients[name]] * requests, *zip(*work), tags))
                seconds = time.perf_counter() - started
                rates[name].append(requests * CASES / seconds)
                if cpu0 is not None:
                    cpu[name].append((meter.seconds() - cpu0) / (requests * CASES))
    return {name: {"cases_per_s": statistics.median(rates[name]), "cases_per_s_rounds": [round(x) for x in rates[name]],
                   "cpu_ms_per_case": statistics.median(cpu[name]) * 1e3 if cpu[name] else None} for name in names}


def pick_cost(picks: int) -> float:
    """µs to lease an endpoint of a three-endpoint pool and give it back (no budget limit, no HTTP)."""
    pool = Pool(("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"))
    try:
        started = time.perf_counter()
        for _ in range(picks):
            pool.lease(set(), 1.0).answered()
        return (time.perf_counter() - started) / picks * 1e6
    finally:
        pool.close()


def overhead(url: str, rounds: int, requests: int) -> dict[str, float]:
    """One-case /judge requests one at a time through one endpoint and through three that are the same server."""
    body, sums = submission(random.Random(3), 1)
    sides = {"one endpoint": Client(url), "three endpoints, one server": Client([url, url, url])}
    latency: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for r in range(rounds):
            for name in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                client = sides[name]
                own0 = time.process_time()
                for i in range(requests):
                    started = time.perf_counter()
                    judged(client, body, sums, f"round {r} {name} {i}")
                    latency[name].append(time.perf_counter() - started)
                cpu[name].append((time.process_time() - own0) / requests)
    finally:
        for client in sides.values():
            client.close()
    one, three = sides
    figures = {f"{name} latency_median_ms": statistics.median(latency[name]) * 1e3 for name in sides}
    figures |= {f"{name} client_cpu_ms": statistics.median(cpu[name]) * 1e3 for name in sides}
    figures["added_latency_ms"] = figures[f"{three} latency_median_ms"] - figures[f"{one} latency_median_ms"]
    figures["added_client_cpu_ms"] = figures[f"{three} client_cpu_ms"] - figures[f"{one} client_cpu_ms"]
    return figures


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    rounds, requests = (2, 24) if args.quick else (5, 72)
    servers: dict[str, list[Server]] = {}
    clients: dict[str, Client] = {}
    try:
        for name, slots in CONTENDERS.items():
            servers[name] = [start(n) for n in slots]
            clients[name] = Client([s.url for s in servers[name]], timeout=300)
        busy0, started = machine_busy(), time.monotonic()
        own0 = meter.seconds()
        figures = throughput(clients, rounds, requests, meter)
        costs = overhead(servers["1 server, 3 slots"][0].url, rounds, 40 if args.quick else 150)
        costs["pick_us"] = pick_cost(20_000 if args.quick else 200_000)
        seconds = time.monotonic() - started
        spread = [e["requests"] for e in clients["3 servers, 1 slot each"].endpoints()]
    except (WrongResult, RuntimeError) as exc:
        console.print(f"[red]the benchmark is void: {exc}[/]")
        return 1
    finally:
        for client in clients.values():
            client.close()
        for group in servers.values():
            for server in group:
                server.close()
    ours = meter.seconds()
    others = None if own0 is None or ours is None else machine_busy() - busy0 - (ours - own0)
    trio = figures["3 servers, 1 slot each"]["cases_per_s"]
    ratios = {"trio_vs_one_slot": trio / figures["1 server, 1 slot"]["cases_per_s"],
              "trio_vs_one_server_three_slots": trio / figures["1 server, 3 slots"]["cases_per_s"]}
    table = Table(title=f"/judge, {CASES} cases per request, {THREADS} in flight: {rounds} interleaved rounds on "
                        f"{CORES} cores, {seconds:.0f} s", caption="CPU: every process, servers, sandboxes and client")
    for header in ("contender", "cases/s (median)", "rounds", "CPU ms/case"):
        table.add_column(header, justify="left" if header == "contender" else "right")
    for name, f in figures.items():
        table.add_row(name, f"{f['cases_per_s']:.0f}", " ".join(map(str, f["cases_per_s_rounds"])),
                      fmt(f["cpu_ms_per_case"], ".2f"))
    console.print(table)
    console.print(f"3 servers: {ratios['trio_vs_one_slot']:.2f}× the cases/s of 1 server with 1 slot, "
                  f"{ratios['trio_vs_one_server_three_slots']:.2f}× 1 server with the same 3 slots; requests per "
                  f"server {spread}")
    console.print(f"Balancing: a pick costs {costs['pick_us']:.1f} µs; end to end, three endpoints add "
                  f"{costs['added_latency_ms']:.3f} ms to the median one-case request "
                  f"({costs['one endpoint latency_median_ms']:.2f} ms) and {costs['added_client_cpu_ms']:.3f} ms "
                  "of client CPU per request")
    print_noise(others, seconds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": rounds, "requests_per_round": requests, "cases_per_request": CASES,
                       "threads": THREADS, "cores": CORES, "seconds": seconds, "others_cpu_s": others,
                       "contenders": figures, "ratios": ratios, "trio_requests_per_server": spread,
                       "balancing": costs}, f, indent=2)
        console.print(f"figures written to {args.json}")
    return 0


def main() -> int:
    return entry(__doc__, "a short run: 2 rounds, fewer requests", run)


if __name__ == "__main__":
    sys.exit(main())
