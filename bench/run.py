"""judgebox against a fresh process per case, Python and C++ (``make bench``): a thin caller of
:mod:`judgebox.tools.bench`, which ``judgebox bench`` runs too and whose docstring gives the method.

It also holds what the other benchmarks here share: the command line (``entry``) and a server on a free
loopback port (``Server``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import httpx
from rich.console import Console

from judgebox.tools import bench as benchmark
from judgebox.tools.bench import CORES, CpuMeter, WrongResult, fmt, machine_busy

__all__ = ["CORES", "CpuMeter", "Server", "WrongResult", "console", "entry", "fmt", "machine_busy", "print_noise"]
console = Console(width=None if sys.stdout.isatty() else 150)


def main() -> int:
    return entry(__doc__, "a short run: fewer rounds and cases", run)


def entry(doc: str, quick: str, run: Callable[[argparse.Namespace, CpuMeter], int]) -> int:
    """The command line every benchmark here shares: ``--quick``, ``--json PATH``, and a CPU meter made
    before any judge starts, so its slot groups (and the sandboxes) nest inside the meter's group."""
    # They measure judging: a submission repeated round after round must run every time (bench/dedupe.py
    # gives its judge a result cache explicitly). Servers and child processes they start inherit this.
    os.environ.setdefault("JUDGEBOX_DEDUPE", "0")
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()
    with CpuMeter() as meter:
        return run(args, meter)


def print_noise(others: float | None, seconds: float) -> None:
    benchmark.print_noise(others, seconds, console)


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    try:
        figures = benchmark.run(args.quick, console, meter)
    except (WrongResult, RuntimeError) as exc:
        console.print(f"[red]the benchmark is void: {exc}[/]")
        return 1
    benchmark.show(figures, console)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
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
