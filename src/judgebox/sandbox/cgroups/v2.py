"""cgroup v2: one unified hierarchy, so a slot is one group holding every controller it was given.

judgebox makes its slot groups under the group it runs in (from ``/proc/self/cgroup``'s ``0::`` line):
a systemd unit with ``Delegate=yes``, a container with its own cgroup namespace, or a group an admin
handed over. Controllers reach a group only through its parent's ``cgroup.subtree_control``, and a
non-root group that passes controllers on may hold no processes itself (the "no internal processes"
rule), so before enabling them judgebox moves the processes of its group into a leaf of their own.
"""

from __future__ import annotations

import errno
import os

from judgebox.sandbox.cgroups import common

LEAF = "judgebox-judge"  # where the judge's group's own processes go so that the group may pass controllers on
WANTED = ("memory", "pids", "cpu", "cpuset")
VISIBLE = ("cpu", "cpuset")  # enabled where available, only for runtimes that read cpu.max and cpuset.cpus


def delegated_group() -> str | None:
    """The host path of the v2 group slot groups are made in, or None without a cgroup2 mount we are in."""
    mount = next(((point, root) for point, root, fstype, _ in common.cgroup_mounts() if fstype == "cgroup2"), None)
    own = own_path()
    if mount is None or own is None or ".." in own.split("/"):  # "/.." : our group is outside our cgroup namespace
        return None
    point, root = mount
    if root != "/":  # a mount of a subtree: our path must lie inside it
        if own != root and not own.startswith(root + "/"):
            return None
        own = own[len(root):] or "/"
    path = os.path.join(point, own.lstrip("/")).rstrip("/") or "/"
    return os.path.dirname(path) if os.path.basename(path) == LEAF else path


def own_path() -> str | None:
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].rstrip("\n")
    return None


def controllers(group: str, name: str = "cgroup.controllers") -> frozenset[str]:
    """The controllers a group has (``cgroup.controllers``) or passes on (``cgroup.subtree_control``)."""
    try:
        with open(os.path.join(group, name)) as f:
            return frozenset(f.read().split())
    except OSError:
        return frozenset()


def writable(group: str) -> bool:
    """Whether this process may make groups here and move processes in (a delegated subtree for non-root)."""
    return all(os.access(path, os.W_OK) for path in (group, os.path.join(group, "cgroup.procs"),
                                                     os.path.join(group, "cgroup.subtree_control")))


def enable(group: str, wanted: tuple[str, ...]) -> list[str]:
    """Pass each wanted controller the group has on to its children; the problems, one per controller."""
    missing = [name for name in wanted if name not in controllers(group, "cgroup.subtree_control")]
    problems = []
    for name in missing:
        try:
            _write(group, "cgroup.subtree_control", f"+{name}")
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                problems.append(f"{name}: cannot enable in {group}/cgroup.subtree_control: {exc.strerror}")
                continue
            try:  # EBUSY: the group holds processes (judgebox's own among them)
                move_into_leaf(group)
                _write(group, "cgroup.subtree_control", f"+{name}")
            except OSError as again:
                problems.append(f"{name}: cannot enable in {group}/cgroup.subtree_control even with its "
                                f"processes moved to {LEAF}: {again.strerror}")
    return problems


def move_into_leaf(group: str) -> None:
    """Move every process of ``group`` into ``group/judgebox-judge``. All of them, not only judgebox: one
    process left behind (the shell that started judgebox in a container's root group) keeps the rule
    from being met. A process forked meanwhile is caught by the next pass."""
    leaf = os.path.join(group, LEAF)
    os.makedirs(leaf, exist_ok=True)
    for _ in range(10):
        with open(os.path.join(group, "cgroup.procs")) as f:
            pids = f.read().split()
        if not pids:
            return
        for pid in pids:
            try:
                _write(leaf, "cgroup.procs", pid)
            except ProcessLookupError:  # exited meanwhile
                pass
    raise OSError(errno.EBUSY, f"processes keep appearing in {group}")


def create(group: str, name: str, memory: bool, group_oom: bool) -> str:
    """Make the slot's group (raises OSError). With the memory controller: no swap, and with ``group_oom``
    an OOM kill takes every process of the run at once (memory.oom.group; the zygote, at oom_score_adj
    -1000, is spared)."""
    common.remove_stale_groups(group, kill=True)
    path = os.path.join(group, name)
    os.makedirs(path, exist_ok=True)
    if memory:
        if group_oom:
            _write(path, "memory.oom.group", "1")
        if os.path.exists(os.path.join(path, "memory.swap.max")):  # absent without swap accounting
            _write(path, "memory.swap.max", "0")
    return path


def _write(group: str, name: str, text: str) -> None:
    with open(os.path.join(group, name), "w") as f:
        f.write(text)
