# attack: set the I/O priority of the slot's worker (pid 1), its process group and its uid to idle
#   (ioprio_set), for every later run to inherit
# expect: AC
# untouched: host-processes no-leftovers
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
SYS_IOPRIO_SET = 251  # x86_64
WHO_PROCESS, WHO_PGRP, WHO_USER = 1, 2, 3
IDLE = 3 << 13  # IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)
for which, who in [(WHO_PROCESS, 1), (WHO_PGRP, 0), (WHO_PGRP, 1), (WHO_USER, os.getuid()),
                   *((WHO_PROCESS, pid) for pid in range(2, 64) if pid != os.getpid())]:
    if libc.syscall(SYS_IOPRIO_SET, which, who, IDLE) == 0:
        print("ioprio_set", which, who, file=sys.stderr)
print("blocked")
