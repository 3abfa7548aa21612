# attack: stop the run-time clock by keeping many tasks queued for a CPU (their waiting is what is forgiven) while the
#   main process sleeps far past the limit; the CPU limit and the wall-clock backstop still end it
# expect: TLE
# limits: cpu_time=2 run_time=0.5 wall_time=20
# untouched: no-leftovers
import os
import time

for _ in range(24):
    if os.fork() == 0:
        while True:
            pass
time.sleep(10**6)
