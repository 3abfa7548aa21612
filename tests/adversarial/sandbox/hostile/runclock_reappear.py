# attack: stop the run-time clock for nothing: bank waiting for a CPU once (12 processes queued on one CPU for 1.5 s),
#   then let each process vanish from the zygote's /proc (non-dumpable) and reappear (dumpable) over and over; a task
#   the clock did not see at its last reading is taken as new, so its whole banked run_delay is forgiven again at every
#   reappearance, and the program sleeps 4 s under a 0.5 s run time
# expect: TLE
# limits: cpu_time=10 run_time=0.5 wall_time=20
# untouched: no-leftovers
import ctypes
import os
import random
import time

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
started = time.monotonic()
for i in range(12):
    if os.fork() == 0:
        try:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # all queued behind each other
        except OSError:
            pass
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            pass
        rnd = random.Random(i)
        while True:
            libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
            time.sleep(rnd.uniform(0.002, 0.02))
            libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
            time.sleep(rnd.uniform(0.002, 0.02))
time.sleep(4)
print("LEAKED finished after", round(time.monotonic() - started, 1), "s of sleep past the run time")
