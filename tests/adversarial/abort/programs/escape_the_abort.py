# Tries to outlive Judge.close(cancel=True): a double-forked daemon in a session of its own that ignores
# SIGTERM and SIGHUP, a busy thread in every process, a child in a pid namespace of its own (if unshare is
# allowed), and a ptrace-attached helper (if ptrace is). Each process names itself "jbxab-..." so that
# the test can look for it in the host's /proc once the judge has closed.
import ctypes
import os
import signal
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NAME, PR_SET_PTRACER, PTRACE_TRACEME = 15, 0x59616D61, 0
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000


def become(name: bytes) -> None:
    libc.prctl(PR_SET_NAME, name, 0, 0, 0)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    threading.Thread(target=spin, daemon=True).start()


def spin() -> None:
    while True:
        pass


def linger(name: bytes) -> None:
    become(name)
    while True:
        time.sleep(0.01)


if os.fork() == 0:  # the daemon: its own session, then orphaned
    os.setsid()
    if os.fork() == 0:
        linger(b"jbxab-daemon")
    os._exit(0)
if os.fork() == 0:  # a pid namespace below the run's
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0 and os.fork() == 0:
        linger(b"jbxab-nested")
    linger(b"jbxab-unshare")
if os.fork() == 0:  # a child that asks to be traced
    libc.ptrace(PTRACE_TRACEME, 0, 0, 0)
    linger(b"jbxab-traced")
become(b"jbxab-main")
spin()
