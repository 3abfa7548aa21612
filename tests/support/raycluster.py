"""A real Ray cluster for the tests and the benchmark: nodes of one CPU each, all inside a network namespace
made for it, with the driver run there too.

Why a namespace: on this machine Ray advertises the host's interface address even when told 127.0.0.1,
so its traffic would leave loopback; in a fresh namespace that has only ``lo`` every node registers as
127.0.0.1. Ray's temp dir is under the caller's folder, the dashboard is off, and :meth:`close` ends
every process of the cluster by pid (those in the namespace and their descendants, the sandboxes among
them) and deletes the namespace, whatever happened before.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

RAY = str(Path(sys.executable).with_name("ray"))
MARK = "ray-driver: "  # begins each answer line of tests/support/ray_driver.py: Ray writes to its stdout too
PORT = 6379  # the namespace is ours: no other GCS listens there
# Nodes are declared dead within a few seconds of their raylet's end (Ray's default is tens of seconds).
FAST_FAILURE = {"RAY_health_check_period_ms": "500", "RAY_health_check_timeout_ms": "1000",
                "RAY_health_check_failure_threshold": "3", "RAY_health_check_initial_delay_ms": "1000"}


class RayCluster:
    def __init__(self, folder: Path, nodes: int = 2) -> None:
        self.namespace = f"jbx-ray-{secrets.token_hex(4)}"
        self.temp = folder / "ray"
        self.temp.mkdir(parents=True, exist_ok=True)
        self.address = f"127.0.0.1:{PORT}"
        self.raylets: list[int] = []  # per node, in the order started
        subprocess.run(["ip", "netns", "add", self.namespace], check=True)
        try:
            subprocess.run(["ip", "-n", self.namespace, "link", "set", "lo", "up"], check=True)
            self._start_node(head=True)
            for _ in range(nodes - 1):
                self.add_node()
        except BaseException:
            self.close()
            raise

    def command(self, *words: str) -> list[str]:
        """``words`` as a command run inside the cluster's network namespace. nsenter, not ``ip netns exec``:
        that one mounts a sysfs of its own, which hides the cgroup hierarchies the sandbox needs."""
        return ["nsenter", f"--net=/run/netns/{self.namespace}", *words]

    def node_command(self) -> list[str]:
        """The command that adds one node (of one CPU) to the cluster, from inside the namespace."""
        return [RAY, "start", f"--address={self.address}", *self._node_options()]

    def add_node(self) -> None:
        self._start_node(head=False)

    def run_driver(self, spec: dict[str, Any], timeout: float = 900) -> dict[str, Any]:
        """Run tests/support/ray_driver.py with ``spec`` in the namespace; its JSON answer."""
        script = Path(__file__).with_name("ray_driver.py")
        done = subprocess.run(self.command(sys.executable, str(script)), input=json.dumps(spec), text=True,
                              capture_output=True, timeout=timeout, env=self.environment())
        if done.returncode != 0:
            raise AssertionError(f"the driver failed ({done.returncode}):\n{done.stderr[-6000:]}")
        return answer_in(done.stdout.splitlines())

    def run(self, *words: str, timeout: float = 900) -> subprocess.CompletedProcess:
        """``words`` run to their end in the namespace, with the cluster's address in ``RAY_ADDRESS``."""
        return subprocess.run(self.command(*words), capture_output=True, text=True, timeout=timeout,
                              env=self.environment())

    def start_driver(self, spec: dict[str, Any]) -> subprocess.Popen:
        """tests/support/ray_driver.py with ``spec`` in the namespace, left running (the benchmark's rounds mode)."""
        script = Path(__file__).with_name("ray_driver.py")
        driver = subprocess.Popen(self.command(sys.executable, str(script)), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=self.environment())
        driver.stdin.write(json.dumps(spec) + "\n")
        driver.stdin.flush()
        return driver

    def pids(self) -> set[int]:
        """Every process of the cluster: those in the namespace and their descendants."""
        listed = subprocess.run(["ip", "netns", "pids", self.namespace], capture_output=True, text=True).stdout
        found = {int(p) for p in listed.split()}
        children = _children()
        pending = list(found)
        while pending:
            for child in children.get(pending.pop(), ()):
                if child not in found:
                    found.add(child)
                    pending.append(child)
        return found

    def kill_raylet(self, node: int) -> None:
        """End one node: its raylet and everything under it, at once."""
        raylet = self.raylets[node]
        for pid in _descendants(raylet) | {raylet}:
            _kill(pid)

    def close(self) -> None:
        for _ in range(20):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                _kill(pid)
            time.sleep(0.25)
        subprocess.run(["ip", "netns", "del", self.namespace], check=False)

    def __enter__(self) -> RayCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------------

    def _node_options(self) -> list[str]:
        return ["--num-cpus=1", "--node-ip-address=127.0.0.1", f"--temp-dir={self.temp}",
                "--object-store-memory=200000000", "--disable-usage-stats"]

    def environment(self) -> dict[str, str]:
        return {**os.environ, **FAST_FAILURE, "RAY_ADDRESS": self.address, "RAY_USAGE_STATS_ENABLED": "0"}

    def _start_node(self, head: bool) -> None:
        before = self._raylets()
        words = ([RAY, "start", "--head", f"--port={PORT}", "--include-dashboard=false", *self._node_options()]
                 if head else self.node_command())
        done = subprocess.run(self.command(*words), capture_output=True, text=True, timeout=120,
                              env=self.environment())
        if done.returncode != 0:
            raise RuntimeError(f"ray start failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        started = self._raylets() - before
        if len(started) != 1:
            raise RuntimeError(f"expected one new raylet, found {sorted(started)}")
        self.raylets.append(started.pop())

    def _raylets(self) -> set[int]:
        return {pid for pid in self.pids() if _name(pid) == "raylet"}


def answer_in(lines: Iterable[str]) -> dict[str, Any]:
    """The first answer of tests/support/ray_driver.py among ``lines`` (its stdout, which Ray writes to as well)."""
    for line in lines:
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise AssertionError("the driver gave no answer")


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rpartition(")")[2].split()[1])
            children.setdefault(parent, []).append(int(entry))
    return children


def _descendants(pid: int) -> set[int]:
    children, found, pending = _children(), set(), [pid]
    while pending:
        for child in children.get(pending.pop(), ()):
            found.add(child)
            pending.append(child)
    return found


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
