"""The sandbox's own root: the paths runs may read, and nothing else of the host exists there.

Landlock decides what a run may open, but not what it may ``stat``, and /sys would still show the host's
whole cgroup tree (other judges' live memory, CPU and process counts). So the zygote, once in its mount
namespace, builds a new root on a tmpfs: read-only bind mounts of exactly the configured read paths
(the system folders, the sandbox Python's prefix, the toolchain cache), a fresh /proc, the work folder
and /dev/shm as size-capped tmpfs, the few devices runs use, and of /sys only what runtimes read (the CPU
topology, the transparent-huge-page size) and the slot's own cgroup groups (the JVM sizes its heap from
its memory limit). Then it pivots into it and detaches the host's tree. A run cannot name a host path
outside that set: it does not exist.
"""

from __future__ import annotations

import os

from . import kernel

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
DEVICE_LINKS = {"/dev/fd": "/proc/self/fd", "/dev/stdin": "/proc/self/fd/0", "/dev/stdout": "/proc/self/fd/1",
                "/dev/stderr": "/proc/self/fd/2"}
SYS_PATHS = ("/sys/devices/system/cpu", "/sys/kernel/mm/transparent_hugepage")
BUILT_HERE = ("/proc", "/sys", "/dev")  # never bound whole from the host
STAGING = "/tmp"  # where the new root is assembled (this mount namespace's own mount point)
OLD_ROOT = "/.host"  # where the host's root sits between pivot_root and its detachment


def pivot_into_own_root(config: dict) -> None:
    """Build the root and enter it; afterwards ``/`` is the sandbox's root."""
    new = STAGING
    kernel.mount("tmpfs", new, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV, "size=1m,nr_inodes=4096,mode=0755")
    for path in config["read_paths"]:
        if not any(path == top or path.startswith(top + "/") for top in BUILT_HERE):
            _bind(path, new)
    for path in SYS_PATHS:
        _bind(path, new)
    for at, path in sorted(config.get("cgroup_view", {}).items()):  # the slot's own groups, where runtimes look
        _bind(path, new, at)
    for device in DEVICES:
        _bind(device, new, read_only=False)
    for link, target in DEVICE_LINKS.items():
        os.symlink(target, new + link)
    owner = f"uid={config['uid']},gid={config['gid']}" if config["mode"] == "root" else "uid=0,gid=0"
    for folder, size, inodes, extra in ((config["workdir"], config["workdir_bytes"], 8192, 0),
                                        ("/dev/shm", config["shm_bytes"], 1024, kernel.MS_NOEXEC)):
        os.makedirs(new + folder, exist_ok=True)
        kernel.mount("tmpfs", new + folder, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV | extra,
                     f"size={size},nr_inodes={inodes},mode=0700,{owner}")
    os.makedirs(new + "/proc", exist_ok=True)
    kernel.mount("proc", new + "/proc", "proc", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC,
                 "hidepid=invisible")
    os.makedirs(new + OLD_ROOT)
    kernel.pivot_root(new, new + OLD_ROOT)
    os.chdir("/")
    kernel.umount(OLD_ROOT, kernel.MNT_DETACH)
    os.rmdir(OLD_ROOT)
    kernel.mount("none", "/", None, kernel.MS_REMOUNT | kernel.MS_RDONLY | kernel.MS_NOSUID | kernel.MS_NODEV)


def _bind(path: str, new_root: str, at: str | None = None, read_only: bool = True) -> None:
    """``path`` of the host at the same place in the new root, or at ``at`` (a link is recreated as a link)."""
    if not os.path.lexists(path):
        return
    target = new_root + (at or path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.islink(path):  # /bin -> usr/bin on a merged-/usr system
        if not os.path.lexists(target):
            os.symlink(os.readlink(path), target)
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    elif not os.path.exists(target):
        open(target, "w").close()
    kernel.mount(path, target, None, kernel.MS_BIND | kernel.MS_REC)
    if read_only:
        # A remount must keep the flags the host's mount has (a user namespace may not clear them).
        kept = os.statvfs(path).f_flag & (kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC)
        kernel.mount("none", target, None, kernel.MS_BIND | kernel.MS_REMOUNT | kernel.MS_RDONLY | kept)
