# attack: ptrace the zygote and our own child, read another process's memory, steal its fds via pidfd_getfd
# expect: AC
# untouched: host-processes
import ctypes
import os
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_SEIZE = 0, 16, 0x4206
SYS_PTRACE, SYS_PROCESS_VM_READV, SYS_PIDFD_OPEN, SYS_PIDFD_GETFD, SYS_KCMP = 101, 310, 434, 438, 312

child = os.fork()
if child == 0:
    time.sleep(100)
    os._exit(0)
for pid in (1, os.getppid(), child):
    for request in (PTRACE_ATTACH, PTRACE_SEIZE):
        if libc.syscall(SYS_PTRACE, request, pid, 0, 0) == 0:
            print("ATTACHED", pid, request)
    buffer = ctypes.create_string_buffer(8)
    local = (ctypes.c_void_p * 2)(ctypes.cast(buffer, ctypes.c_void_p), 8)
    remote = (ctypes.c_void_p * 2)(0x400000, 8)
    if libc.syscall(SYS_PROCESS_VM_READV, pid, local, 1, remote, 1, 0) > 0:
        print("READ memory of", pid)
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd >= 0:
        for fd in range(8):
            if libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0) >= 0:
                print("STOLE fd", fd, "of", pid)
    if libc.syscall(SYS_KCMP, os.getpid(), pid, 0, 0, 0) >= 0:
        print("KCMP", pid)
if libc.syscall(SYS_PTRACE, PTRACE_TRACEME, 0, 0, 0) == 0:
    print("TRACEME allowed")
os.kill(child, 9)
print("blocked")
