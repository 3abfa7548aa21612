"""The seccomp policy of every sandboxed run, compiled to BPF once per process with libseccomp.

Allow by default, deny what a judged program never needs and an attacker would want: debugging other
processes, kernel interfaces that have been a steady source of exploits, new namespaces and mounts,
and every socket family but AF_UNIX (the network namespace is empty anyway; this is the second wall).
Syscalls of other ABIs (i386 ``int 0x80``, x32) are refused by libseccomp's architecture check.
"""

from __future__ import annotations

import errno
import functools
import os
import socket

from judgebox.errors import SandboxError

DENIED = (
    # other processes' memory and control
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    # namespaces, mounts, the filesystem root
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # kernel attack surface with a record of exploits
    "bpf", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "perf_event_open",
    "keyctl", "add_key", "request_key",
    # the machine itself
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
    "swapoff", "acct", "quotactl", "syslog", "iopl", "ioperm", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "vhangup", "open_by_handle_at",
    "name_to_handle_at", "lookup_dcookie", "fanotify_init", "uselib",
    # SysV IPC and POSIX message queues live in the slot's IPC namespace, which outlives a run: denied so
    # no run can leave memory or messages behind for the next (POSIX shared memory in /dev/shm is wiped)
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
    "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
    "mq_getsetattr",
    # other processes' memory management
    "process_madvise", "process_mrelease",
)
# Calls that change a process's attributes by pid. A run shares its uid with the slot's zygote (pid 1 of its
# namespace), and every later run is forked from the zygote and inherits what it has, so a run that lowered
# the zygote's open-file limit or pinned it to one CPU would spoil every run after it. These calls may name
# the caller only (pid 0); reading another process's limits (prlimit64 with no new limit) stays allowed.
# Scheduling hints aimed at another thread or process (Mono sets each of its threads' priority by thread
# id) are answered "done" and do nothing, so runtimes that only hint do not fail; limits and memory
# placement aimed elsewhere fail with EPERM.
HINTS_FOR_SELF_ONLY = ("sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr")
PRIO_PROCESS, IOPRIO_WHO_PROCESS = 0, 1
NAMESPACE_FLAGS = (0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x02000000)


@functools.lru_cache(maxsize=1)
def compiled_bpf() -> bytes:
    """The policy as a classic-BPF program, ready for ``prctl(PR_SET_SECCOMP)``."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:
        raise SandboxError(f"libseccomp is not available ({exc}); as root run: apt-get install -y libseccomp2"
                           ) from None

    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    deny = seccomp.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            rules.add_rule(deny, name)
        except (OSError, ValueError):  # a syscall this architecture does not have
            continue
    # glibc falls back from clone3 (whose flags BPF cannot inspect) to clone, whose flags it can
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    ignore = seccomp.ERRNO(0)
    rules.add_rule(deny, "prlimit64", seccomp.Arg(0, seccomp.NE, 0), seccomp.Arg(2, seccomp.NE, 0))
    for name in ("migrate_pages", "move_pages"):
        rules.add_rule(deny, name, seccomp.Arg(0, seccomp.NE, 0))
    for name in HINTS_FOR_SELF_ONLY:
        rules.add_rule(ignore, name, seccomp.Arg(0, seccomp.NE, 0))
    for name, which in (("setpriority", PRIO_PROCESS), ("ioprio_set", IOPRIO_WHO_PROCESS)):  # no group, no user
        rules.add_rule(ignore, name, seccomp.Arg(0, seccomp.NE, which))
        rules.add_rule(ignore, name, seccomp.Arg(1, seccomp.NE, 0))
    rules.add_rule(seccomp.ERRNO(errno.EACCES), "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "ioctl", seccomp.Arg(1, seccomp.EQ, 0x5412))  # TIOCSTI
    fd = os.memfd_create("seccomp-bpf", os.MFD_CLOEXEC)
    with os.fdopen(fd, "w+b") as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        return sink.read()
