"""The slot's cgroup files, opened once by the zygote and read with pread: limits and usage per run.

The judge makes the slot's groups (``sandbox/cgroups/``) and says which hierarchy serves each need
(memory, pids, cpu); the file names of both versions are here. Keeping the files open saves an
open/close pair per access, and every page the zygote touches while a run is alive costs a copy-on-write
fault, so the per-run work is a few preads and pwrites whichever the version.
"""

from __future__ import annotations

import os

from .protocol import RunLimits

MiB = 1024 * 1024

# (need, hierarchy) -> {role: file}. v2: memory.peak needs kernel 5.19 and takes a reset (per open file,
# by writing to it) from 6.12; cpu.stat's usage_usec is in microseconds, cpuacct.usage in nanoseconds.
FILES = {
    ("memory", 1): {"usage": "memory.usage_in_bytes", "peak": "memory.max_usage_in_bytes",
                    "limit": "memory.limit_in_bytes", "events": "memory.oom_control", "stat": "memory.stat"},
    ("memory", 2): {"usage": "memory.current", "peak": "memory.peak", "limit": "memory.max",
                    "events": "memory.events", "stat": "memory.stat"},
    ("pids", 1): {"limit": "pids.max"},
    ("pids", 2): {"limit": "pids.max"},
    ("cpu", 1): {"usage": "cpuacct.usage"},
    ("cpu", 2): {"usage": "cpu.stat"},
}
OOM_KILL_KEYS = (b"oom_kill", b"oom_group_kill")  # v1's memory.oom_control has the first, v2's memory.events both
# memory.stat's page cache on the file LRU lists (both versions name them so): the kernel takes it back before
# it kills anything, so it is room the run can use, never the zygote's own.
PAGE_CACHE_KEYS = (b"active_file", b"inactive_file")
# How far the slot's charge may grow past what the zygote held last time before memory.stat is read again:
# a few runs' worth of cache in the slot loosens the limit by at most this much.
RESTAT_SLACK = 8 * MiB


def _sum_of(text: bytes, keys: tuple[bytes, ...]) -> int:
    """The sum of the values of ``keys`` in a cgroup file of "key value" lines."""
    total = 0
    for line in text.split(b"\n"):
        key, _, value = line.partition(b" ")
        if key in keys:
            total += int(value)
    return total


def oom_kills(text: bytes) -> int:
    """Processes the OOM killer killed, from memory.oom_control (v1) or memory.events (v2)."""
    return _sum_of(text, OOM_KILL_KEYS)


def page_cache(text: bytes) -> int:
    """Bytes of page cache on the file LRU lists, from memory.stat (v1 or v2)."""
    return _sum_of(text, PAGE_CACHE_KEYS)


def cpu_usage_ns(text: bytes, hierarchy: int) -> int:
    """CPU time from cpuacct.usage (v1, ns) or cpu.stat's ``usage_usec`` line (v2, us)."""
    if hierarchy == 1:
        return int(text)
    for line in text.split(b"\n"):
        key, _, value = line.partition(b" ")
        if key == b"usage_usec":
            return int(value) * 1000
    raise ValueError("cpu.stat has no usage_usec line")


class CgroupAccounting:
    def __init__(self, needs: dict[str, list]) -> None:
        """``needs``: need -> [hierarchy, group path], for the needs a cgroup serves."""
        self.memory = "memory" in needs
        self.pids = "pids" in needs
        self.cpu = "cpu" in needs
        self._cpu_hierarchy = needs["cpu"][0] if self.cpu else 0
        self._fds: dict[str, int] = {}
        for need, (hierarchy, group) in needs.items():
            for role, name in FILES[(need, hierarchy)].items():
                flags = (os.O_RDWR if role in ("limit", "peak") else os.O_RDONLY) | os.O_CLOEXEC
                try:
                    self._fds[f"{need}.{role}"] = os.open(os.path.join(group, name), flags)
                except OSError:
                    if role != "peak":  # v2's memory.peak is missing before 5.19 and read-only before 6.12
                        raise
        self._written: dict[str, int] = {}
        self._peak = self.memory and self._resets_peak()
        self._oom_kills = self._read_oom_kills() if self.memory else 0
        self._usage_before = 0
        self._held = -1  # what the zygote itself holds in the slot: its charge without the page cache

    def _resets_peak(self) -> bool:
        """Whether the peak can be reset per run (v1 always; v2 from kernel 6.12); if not, peak is unknown
        and the run's own maximum resident size stands."""
        if "memory.peak" not in self._fds:
            return False
        try:
            os.pwrite(self._fds["memory.peak"], b"0", 0)
            return True
        except OSError:
            return False

    def prepare(self, limits: RunLimits) -> None:
        """Set this run's limits and reset the peak.

        The run may use its memory limit on top of what the zygote itself holds. The slot's charge is not
        that: page cache from earlier runs (a compiler's headers, a toolchain read for the first time) stays
        charged to the slot, hundreds of MiB after a few builds, and the kernel reclaims it before it kills
        anything. So the limit is the charge without the cache plus the run's limit; the peak, which the
        kernel resets to the charge as it stands, is measured from the charge."""
        if self.pids:
            self._write_if_changed("pids.limit", limits.processes + 2)  # the zygote and its parent count too
        if self.memory:
            self._usage_before = self._read("memory.usage")
            if not 0 <= self._usage_before - self._held <= RESTAT_SLACK:
                self._held = self._usage_before - page_cache(os.pread(self._fds["memory.stat"], 65536, 0))
            wanted = self._held + limits.memory_mb * MiB
            if abs(wanted - self._written.get("memory.limit", -1)) > 4 * MiB:
                self._set_limit(wanted)
            if self._peak:
                self._write("memory.peak", 0)

    def _set_limit(self, wanted: int) -> None:
        """Write the memory limit. One below the charge makes the kernel reclaim the cache first; v1 refuses
        with EBUSY when it cannot yet (dirty pages under writeback), and then the run gets its limit on top of
        the whole charge, as loose as the cache is large, rather than a limit its own memory would break."""
        try:
            self._write("memory.limit", wanted)
        except OSError:
            self._write("memory.limit", self._usage_before + (wanted - self._held))

    def allow_more(self, extra: int) -> None:
        """Raise the memory limit by ``extra`` bytes until the next run's ``prepare`` sets it again."""
        if self.memory:
            self._write("memory.limit", self._written["memory.limit"] + extra)

    def cpu_ns(self) -> int | None:
        """CPU of every process in the slot (all of a run's processes, and the idle zygote) in ns."""
        if not self.cpu:
            return None
        return cpu_usage_ns(os.pread(self._fds["cpu.usage"], 1024, 0), self._cpu_hierarchy)

    def memory_peak(self) -> int | None:
        return self._read("memory.peak") - self._usage_before if self._peak else None

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
        return oom_kills(os.pread(self._fds["memory.events"], 1024, 0))
