"""The slot's cgroup files, opened once by the zygote and read with pread: limits and usage per run.

cgroup v1 names; the slot's groups are made by the judge (``sandbox/cgroups.py``). Keeping the files open
saves an open/close pair per access, and every page the zygote touches while a run is alive costs a
copy-on-write fault, so the per-run work here is kept to a few syscalls.
"""

from __future__ import annotations

import os

MiB = 1024 * 1024


class CgroupAccounting:
    def __init__(self, paths: dict[str, str]) -> None:
        self.memory = "memory" in paths
        self.pids = "pids" in paths
        self.cpu = "cpuacct" in paths
        self._fds: dict[str, int] = {}
        for controller, name, flags in (("memory", "memory.usage_in_bytes", os.O_RDONLY),
                                        ("memory", "memory.max_usage_in_bytes", os.O_RDWR),
                                        ("memory", "memory.limit_in_bytes", os.O_RDWR),
                                        ("memory", "memory.oom_control", os.O_RDONLY),
                                        ("pids", "pids.max", os.O_RDWR),
                                        ("cpuacct", "cpuacct.usage", os.O_RDONLY)):
            if controller in paths:
                self._fds[name] = os.open(os.path.join(paths[controller], name), flags | os.O_CLOEXEC)
        self._written: dict[str, int] = {}
        self._oom_kills = self._read_oom_kills() if self.memory else 0
        self._usage_before = 0

    def prepare(self, limits: dict) -> None:
        """Set this run's limits and reset the peak; the zygote's own usage is the baseline."""
        if self.pids:
            self._write_if_changed("pids.max", limits["processes"] + 2)  # the zygote and its parent count too
        if self.memory:
            self._usage_before = self._read("memory.usage_in_bytes")
            wanted = self._usage_before + limits["memory_mb"] * MiB
            if abs(wanted - self._written.get("memory.limit_in_bytes", -1)) > 4 * MiB:
                self._write("memory.limit_in_bytes", wanted)
            self._write("memory.max_usage_in_bytes", 0)

    def allow_more(self, extra: int) -> None:
        """Raise the memory limit by ``extra`` bytes until the next run's ``prepare`` sets it again."""
        if self.memory:
            self._write("memory.limit_in_bytes", self._written["memory.limit_in_bytes"] + extra)

    def cpu_ns(self) -> int | None:
        """CPU of every process in the slot (all of a run's processes, and the idle zygote) in ns."""
        return self._read("cpuacct.usage") if self.cpu else None

    def memory_peak(self) -> int | None:
        return self._read("memory.max_usage_in_bytes") - self._usage_before if self.memory else None

    def oom_killed(self) -> bool:
        """Whether the memory limit killed any process of the run (a child's death may leave the main
        process exiting 0, and that is still MLE)."""
        if not self.memory:
            return False
        before, self._oom_kills = self._oom_kills, self._read_oom_kills()
        return self._oom_kills > before

    def _read(self, name: str) -> int:
        return int(os.pread(self._fds[name], 64, 0))

    def _write(self, name: str, value: int) -> None:
        os.pwrite(self._fds[name], str(value).encode(), 0)
        self._written[name] = value

    def _write_if_changed(self, name: str, value: int) -> None:
        if self._written.get(name) != value:
            self._write(name, value)

    def _read_oom_kills(self) -> int:
        for line in os.pread(self._fds["memory.oom_control"], 4096, 0).split(b"\n"):
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
        return 0
