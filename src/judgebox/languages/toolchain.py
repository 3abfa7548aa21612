"""What the judge builds once per machine into its toolchain cache (a folder the sandbox reads): the C++
precompiled header, Go's testify cache, Rust's crates. Each is built from the system's sources only, never
from a submission, so it is built by the judge itself, outside the sandbox."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Callable


def built_once(target: str, build: Callable[[str], None]) -> bool:
    """``target`` (a file or a folder) made once: ``build(partial)`` writes it at ``target + ".partial"``,
    which then takes its place whole, so a build cut short leaves no half of it behind. Under a file lock
    beside it: another judge process may be building it. False where it cannot be had here (a build that
    raised OSError or a failed command)."""
    folder = os.path.dirname(target)
    partial = target + ".partial"
    try:
        os.makedirs(folder, mode=0o755, exist_ok=True)
        with open(os.path.join(folder, ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(target):
                if os.path.isdir(partial):  # what a build cut short left
                    shutil.rmtree(partial)
                elif os.path.exists(partial):
                    os.remove(partial)
                build(partial)
                os.replace(partial, target)
    except (OSError, subprocess.SubprocessError):
        return False
    return True
