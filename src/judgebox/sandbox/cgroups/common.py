"""What both cgroup versions share: the mount table, slot group names, removing a group."""

from __future__ import annotations

import os
import time

PREFIX = "judgebox"


def cgroup_mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root within the hierarchy, "cgroup" or "cgroup2", super options) of every cgroup mount."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fields, post_fields = pre.split(), post.split()
            if post_fields and post_fields[0] in ("cgroup", "cgroup2"):
                found.append((_unescape(fields[4]), _unescape(fields[3]), post_fields[0],
                              set(post_fields[-1].split(","))))
    return found


def _unescape(field: str) -> str:
    """mountinfo writes a space, tab, newline or backslash in a path as an octal escape."""
    for code in ("\\040", "\\011", "\\012", "\\134"):
        field = field.replace(code, chr(int(code[1:], 8)))
    return field


def slot_group_owner(name: str) -> int | None:
    """The judge pid in a slot group's name (judgebox-<pid>-<n>), or None for any other name."""
    parts = name.split("-")
    if len(parts) == 3 and parts[0] == PREFIX and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[1])
    return None


def remove_stale_groups(parent: str, kill: bool) -> None:
    """Remove slot groups left by judge processes that died without closing their slots."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        owner = slot_group_owner(name)
        if owner is not None and not _alive(owner):
            # Killed, its processes take a moment to exit; unkillable (v1), a busy group is left for later.
            remove_group(os.path.join(parent, name), kill=kill, attempts=50 if kill else 1)


def remove_group(path: str, kill: bool, attempts: int = 50) -> None:
    """rmdir a group, first killing what is left in it when ``kill`` (v2's cgroup.kill); a group's last
    processes may still be exiting, so a busy group is tried again for a while."""
    if kill:
        try:
            with open(os.path.join(path, "cgroup.kill"), "w") as f:
                f.write("1")
        except OSError:  # gone already, or a kernel before 5.14: the slot's own teardown killed the runs
            pass
    for attempt in range(attempts):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:  # still has processes, or another judge removed it first
            if attempt + 1 < attempts:
                time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
