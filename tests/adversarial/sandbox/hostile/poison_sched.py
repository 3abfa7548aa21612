# attack: pin the slot's worker (pid 1) and the other processes of the slot's uid to one CPU, and move
#   them to SCHED_IDLE / SCHED_BATCH (sched_setscheduler, sched_setattr), for every later run to inherit
# expect: AC
# untouched: host-processes no-leftovers
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
SYS_SCHED_SETATTR = 314  # x86_64


class SchedAttr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32), ("flags", ctypes.c_uint64),
                ("nice", ctypes.c_int32), ("priority", ctypes.c_uint32), ("runtime", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64), ("util_min", ctypes.c_uint32),
                ("util_max", ctypes.c_uint32)]


targets = [1] + [pid for pid in range(2, 64) if pid != os.getpid()]
for pid in targets:
    for what, call, args in (("affinity", os.sched_setaffinity, ({0},)),
                             ("batch", os.sched_setscheduler, (os.SCHED_BATCH, os.sched_param(0))),
                             ("idle", os.sched_setscheduler, (os.SCHED_IDLE, os.sched_param(0))),
                             ("param", os.sched_setparam, (os.sched_param(0),))):
        try:
            call(pid, *args)
            print(what, "of pid", pid, file=sys.stderr)
        except OSError:
            pass
    attr = SchedAttr(size=ctypes.sizeof(SchedAttr), policy=os.SCHED_BATCH, nice=19)
    if libc.syscall(SYS_SCHED_SETATTR, pid, ctypes.byref(attr), 0) == 0:
        print("sched_setattr of pid", pid, file=sys.stderr)
print("blocked")
