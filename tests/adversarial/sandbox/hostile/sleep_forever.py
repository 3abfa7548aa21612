# attack: sleep forever (no CPU used, only the wall-clock backstop stops it)
# expect: TLE
# limits: cpu_time=1 wall_time=2
# untouched: no-leftovers
import time

time.sleep(10**6)
