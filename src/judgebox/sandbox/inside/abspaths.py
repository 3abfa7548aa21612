"""Folders at absolute paths for one run: SandboxFusion's ``files: {"/mnt/data/a.txt": ...}`` and a program
that writes ``/mnt/b`` for ``fetch_files: ["/mnt/b"]``.

A request's absolute path outside the work folder names a top folder (``/mnt``). For a run that names some,
and for it alone, each is a fresh size-capped tmpfs owned by the slot's uid, made at ``/<top>`` of the
sandbox's own root and gone when the run has ended: the run's Landlock domain (made for it before its fork, see
``Zygote._fork_run``) is the only one that may write there, and the next run finds the root as it was. A top folder is
never one the sandbox's root has (a system folder, ``/proc``, ``/sys``, ``/dev``, the work folder's, the
toolchain cache's): it shadows nothing and reveals nothing of the host.

The mounts are made by the slot's outer process: the one that unshared the slot's namespaces and waits for
their init. It shares the sandbox's mount namespace and keeps the privilege to mount, but it is outside
the sandbox's pid namespace (no run can see or signal it) and only the judge holds its channel. It mounts
only names that pass :func:`check_top` and that do not exist, and unmounts only what it mounted.
"""

from __future__ import annotations

import os
import re
import select
import socket

from . import kernel, protocol
from .protocol import Op

# Top folders the sandbox's root has or builds, whatever its configuration (a configured read path's top,
# such as the toolchain cache's /var, is refused by the outer process, which sees the root itself).
RESERVED = frozenset({"proc", "sys", "dev", "tmp", "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc",
                      "var", "run", "boot"})
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,63}")
MAX_TOPS = 8  # distinct top folders per run
WORKDIR = "/tmp"  # the work folder, where it is inside the sandbox's root


def top_of(path: str, workdir: str) -> str | None:
    """The top folder an absolute path outside ``workdir`` needs, or None (relative, or in the work folder).
    Raises ValueError for a path no run may use."""
    if not path or "\0" in path or ".." in path.split("/"):
        raise ValueError(f"file path {path!r} is not allowed (empty, NUL or '..')")
    if not path.startswith("/"):
        return None
    normal = os.path.normpath(path)
    if normal == workdir or normal.startswith(workdir + "/"):
        return None
    parts = normal.strip("/").split("/")
    if len(parts) < 2:
        raise ValueError(f"file path {path!r} is not allowed: an absolute path names a file inside a top folder")
    check_top(parts[0])
    return parts[0]


def check_top(top: str) -> None:
    if not NAME.fullmatch(top) or top in RESERVED:
        raise ValueError(f"/{top} is not allowed: a run's absolute paths may not be in the sandbox's own folders "
                         f"({', '.join('/' + name for name in sorted(RESERVED))}) or the work folder")


def tops_of(paths: list[str], workdir: str) -> list[str]:
    """The distinct top folders ``paths`` need, in a stable order."""
    tops = sorted({top for top in (top_of(path, workdir) for path in paths) if top is not None})
    if len(tops) > MAX_TOPS:
        raise ValueError(f"the paths name {len(tops)} top folders; at most {MAX_TOPS}")
    return tops


# -- the outer process ------------------------------------------------------------------------------------


def serve(channel: socket.socket, child_pid: int, owner: str, size: int, inodes: int) -> int:
    """The outer process's loop until the slot's init ends: answer the judge's mount and unmount requests.
    Returns the init's wait status."""
    os.chdir("/")  # not the judge's folder on the host: the sandbox's root once init has pivoted into it
    pidfd = os.pidfd_open(child_pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(channel, select.POLLIN)
    mounted: list[str] = []
    while True:
        events = dict(poller.poll())
        if pidfd in events:
            return os.waitpid(child_pid, 0)[1]
        request, fds = protocol.recv(channel, 4096)
        for fd in fds:
            os.close(fd)
        if request is None:  # the judge has gone; init follows with its socket
            poller.unregister(channel)
            continue
        try:
            op = Op(request["op"])
            if op is Op.MOUNT:
                if mounted:
                    raise ValueError("the last run's folders are still mounted")
                for top in request["tops"]:
                    _mount(top, owner, size, inodes)
                    mounted.append(top)
            elif op is Op.UNMOUNT:
                _unmount(mounted)
            else:
                raise ValueError(f"not a request of the outer process: {op}")
            reply: dict = {"ok": True}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            try:
                _unmount(mounted)  # a mount request that failed half-way leaves nothing
            except OSError:
                pass
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        protocol.send(channel, reply)


def _mount(top: str, owner: str, size: int, inodes: int) -> None:
    check_top(top)
    target = "/" + top
    if os.path.lexists(target):
        raise ValueError(f"{target} is one of the sandbox's own folders")
    with _writable_root():
        os.mkdir(target, 0o755)
    kernel.mount("tmpfs", target, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV,
                 f"size={size},nr_inodes={inodes},mode=0700,{owner}")


def _unmount(mounted: list[str]) -> None:
    while mounted:
        target = "/" + mounted[-1]
        if os.path.ismount(target):
            kernel.umount(target, kernel.MNT_DETACH)
        with _writable_root():
            if os.path.isdir(target):
                os.rmdir(target)
        mounted.pop()


class _writable_root:
    """The sandbox's root writable for the moment of a mkdir or rmdir (no run is running: the judge asks only
    between runs), read-only again after."""

    FLAGS = kernel.MS_NOSUID | kernel.MS_NODEV

    def __enter__(self) -> None:
        kernel.mount("none", "/", None, kernel.MS_REMOUNT | self.FLAGS)

    def __exit__(self, *exc: object) -> None:
        kernel.mount("none", "/", None, kernel.MS_REMOUNT | kernel.MS_RDONLY | self.FLAGS)
