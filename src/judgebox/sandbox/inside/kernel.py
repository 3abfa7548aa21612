"""Thin ctypes wrappers for the kernel calls the standard library lacks on Python 3.10/3.11."""

from __future__ import annotations

import ctypes
import os
import struct
import sys
import sysconfig

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
CLONE_NEWCGROUP = 0x02000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 0x4000, 1 << 18
MNT_DETACH = 2
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NAME, PR_SET_NO_NEW_PRIVS = 1, 4, 15, 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_SET_CHILD_SUBREAPER = 36

_libc = ctypes.CDLL(None, use_errno=True)
# Called with the GIL held (a PyDLL call keeps it): the child of a fork made here starts holding it, as
# the thread that forked did.
_libc_with_gil = ctypes.PyDLL(None, use_errno=True)
_libc_with_gil.fork.restype = ctypes.c_int
_libc_with_gil.fork.argtypes = ()


def _check(result: int) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def lean_fork_works() -> bool:
    """Whether :func:`lean_fork` may stand in for ``os.fork`` in this process: CPython with the GIL (3.10 to
    3.13, whose after-fork steps were read for this) and one thread only, the caller."""
    return (sys.implementation.name == "cpython" and (3, 10) <= sys.version_info[:2] <= (3, 13)
            and not sysconfig.get_config_var("Py_GIL_DISABLED") and len(os.listdir("/proc/self/task")) == 1)


def lean_fork() -> int:
    """fork(2) without the interpreter's after-fork steps, for a process with one thread (see
    :func:`lean_fork_works`). Those steps make the interpreter's locks and thread records fit again after
    other threads vanished (there were none) and run the ``os.register_at_fork`` hooks: threading's
    (which rebuilds its records of threads: there is one, and its identity is unchanged) and random's
    (which reseeds: a child that runs Python code calls ``random.seed()`` itself). In a child that is
    to exec, or run a few calls of judge code first, they are some 170 copy-on-write page faults of the
    zygote's memory (each of its pages that Python code touches, code objects included, since 3.11's
    interpreter writes to the bytecode it runs), about 0.6 ms here."""
    return _check(_libc_with_gil.fork())


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)))


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                       ctypes.c_ulong(flags), data.encode() if data else None))


def umount(target: str, flags: int = 0) -> None:
    _check(_libc.umount2(target.encode(), ctypes.c_int(flags)))


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: unknown syscall number on {os.uname().machine}")
    _check(_libc.syscall(ctypes.c_long(number), new_root.encode(), put_old.encode()))


def prctl(option: int, arg2: int = 0) -> None:
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(0), ctypes.c_ulong(0),
                       ctypes.c_ulong(0)))


def set_process_name(name: str) -> None:
    """The name ``ps`` and /proc/PID/status show (at most 15 bytes)."""
    _check(_libc.prctl(ctypes.c_int(PR_SET_NAME), ctypes.c_char_p(name.encode()[:15]), ctypes.c_ulong(0),
                       ctypes.c_ulong(0), ctypes.c_ulong(0)))


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc.sethostname(raw, ctypes.c_size_t(len(raw))))


def drop_capabilities() -> None:
    """Clear every capability of the calling thread (for runs inside an unprivileged user namespace)."""
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(bytes(24), 24)  # two empty {effective, permitted, inheritable}
    _check(_libc.capset(header, data))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class SeccompProgram:
    """A classic-BPF seccomp program prepared once and loaded by each run in one syscall."""

    def __init__(self, bpf: bytes) -> None:
        if not bpf or len(bpf) % 8:
            raise ValueError("a seccomp BPF program is a non-empty sequence of 8-byte instructions")
        self._buffer = ctypes.create_string_buffer(bpf, len(bpf))
        self._prog = _SockFprog(len(bpf) // 8, ctypes.cast(self._buffer, ctypes.c_void_p))

    def load(self) -> None:
        _check(_libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER),
                           ctypes.byref(self._prog), ctypes.c_ulong(0), ctypes.c_ulong(0)))
