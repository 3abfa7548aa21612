"""Per-slot cgroups: the memory, process-count and CPU accounting of one worker slot.

Each slot's zygote lives in its own cgroup and every run inherits it, which costs nothing per run
(attaching a process to a cgroup v1 group costs about 10 ms after idle on this kind of machine).
The slot groups are created under the cgroup judgebox itself runs in, so they nest inside whatever
limits the host already imposes.
"""

from __future__ import annotations

import os
import time

CONTROLLERS = ("memory", "pids", "cpuacct")  # limits and accounting (inside/accounting.py)
# Groups with no limits, only so that a run sees cgroups of its own for every controller a runtime reads:
# the JVM sizes its heap from the memory group and refuses container support unless it also finds its cpu
# and cpuset groups (and the sandbox's root shows a run its own groups only).
VISIBLE_ONLY = ("cpu", "cpuset")


def v1_mounts() -> dict[str, str]:
    """Mount points of the cgroup v1 controllers judgebox uses, by controller name."""
    found: dict[str, str] = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fields, post_fields = pre.split(), post.split()
            if not post_fields or post_fields[0] != "cgroup":
                continue
            options = set(post_fields[-1].split(","))
            for controller in CONTROLLERS + VISIBLE_ONLY:
                if controller in options:
                    found.setdefault(controller, fields[4])
    return found


def own_groups() -> dict[str, str]:
    """The v1 cgroup path of this process, by controller."""
    groups: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(","):
                groups[name] = path
    return groups


class SlotCgroups:
    """Creates (and on close removes) one slot's cgroups in every controller available to us."""

    def __init__(self, name: str) -> None:
        self.paths: dict[str, str] = {}
        self.problems: list[str] = []
        mounts, groups = v1_mounts(), own_groups()
        for controller in CONTROLLERS + VISIBLE_ONLY:
            if controller not in mounts:
                if controller in CONTROLLERS:
                    self.problems.append(f"{controller}: no cgroup v1 hierarchy mounted")
                continue
            parent = os.path.join(mounts[controller], groups.get(controller, "/").lstrip("/"))
            _remove_stale_groups(parent)
            path = os.path.join(parent, name)
            try:
                os.makedirs(path, exist_ok=True)
            except OSError as exc:
                self.problems.append(f"{controller}: cannot create {path}: {exc.strerror}")
                continue
            if controller == "cpuset" and not _inherit_cpuset(parent, path):
                continue
            self.paths[controller] = path

    def close(self) -> None:
        for path in self.paths.values():
            for _ in range(50):  # the slot's processes may still be exiting
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.paths = {}


def _inherit_cpuset(parent: str, path: str) -> bool:
    """A new cpuset group has no CPUs or memory nodes, and no process can join it until it has: the parent's."""
    try:
        for name in ("cpuset.cpus", "cpuset.mems"):
            with open(os.path.join(path, name), "r+") as mine:
                if not mine.read().strip():
                    with open(os.path.join(parent, name)) as theirs:
                        mine.write(theirs.read())
        return True
    except OSError:
        return False


def _remove_stale_groups(parent: str) -> None:
    """Remove slot groups left by judge processes that died without closing their slots."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == "judgebox" and parts[1].isdigit() and not _alive(int(parts[1])):
            try:
                os.rmdir(os.path.join(parent, name))
            except OSError:  # still has processes, or another judge removed it first
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
