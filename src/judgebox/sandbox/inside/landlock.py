"""Landlock (Linux >= 5.13) through raw syscalls: filesystem, TCP and scope rules.

The ruleset is built once in the zygote; each forked run only calls ``restrict_self`` on it, which is
the cheapest way to apply it (about 0.1 ms here).
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
_READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR
_WRITE_RIGHTS = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
                 | MAKE_SYM | REFER | TRUNCATE)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = _libc.syscall(number, *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


@functools.lru_cache(maxsize=1)
def abi_version() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is unavailable or disabled."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def _handled_fs(abi: int) -> int:
    handled = (1 << 13) - 1
    if abi >= 2:
        handled |= REFER
    if abi >= 3:
        handled |= TRUNCATE
    return handled


def build_ruleset(read_paths: list[str], write_paths: list[str]) -> tuple[int, int]:
    """A ruleset fd allowing read+exec beneath ``read_paths`` and read+write beneath ``write_paths``.

    Everything else on the filesystem is denied, TCP bind/connect is denied (ABI >= 4), and signals
    and abstract unix sockets outside the sandboxed process tree are denied (ABI >= 6).
    Returns ``(ruleset_fd, abi)``; paths that do not exist are skipped.
    """
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    handled_fs = _handled_fs(abi)
    handled_net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset_fd = _syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for paths, rights in ((read_paths, _READ_RIGHTS), (write_paths, _READ_RIGHTS | _WRITE_RIGHTS)):
            for path in paths:
                _allow_beneath(ruleset_fd, path, rights & handled_fs)
    except BaseException:
        os.close(ruleset_fd)
        raise
    os.set_inheritable(ruleset_fd, False)
    return ruleset_fd, abi


def _allow_beneath(ruleset_fd: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(_RULE_PATH_BENEATH), rule, ctypes.c_uint32(0))
    finally:
        os.close(fd)


def restrict_self(ruleset_fd: int) -> None:
    """Confine the calling thread (and all it later starts) to the ruleset. Needs no_new_privs."""
    _syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0))


def enter_nested_domain() -> None:
    """Put the calling process in a Landlock domain of its own, nested in its current one.

    For the program's side of a split run: Landlock lets a process ptrace-access (read ``/proc/PID/mem``,
    ``/proc/PID/fd``) only processes of its own domain or of domains nested in it, and with ABI >= 6 signal
    only those, so the program's process can then neither read nor signal the tests' process, which stays
    in the enclosing domain. The new domain adds no filesystem rule of its own (it handles only creating
    block devices, which the enclosing domain denies anyway).
    """
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", MAKE_BLOCK, 0, scoped)
    size = 24 if abi >= 6 else 8
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset_fd = _syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        restrict_self(ruleset_fd)
    finally:
        os.close(ruleset_fd)
