# attack: stop the run-time clock (real time less waiting for a CPU) by hiding from the judge's view of the run's tasks:
#   non-dumpable processes vanish from its /proc, then sleep past the limit
# expect: TLE
# limits: cpu_time=5 run_time=0.5 wall_time=20
# untouched: no-leftovers
import ctypes
import os
import time

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
if os.fork() == 0:
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    time.sleep(10**6)
time.sleep(10**6)
