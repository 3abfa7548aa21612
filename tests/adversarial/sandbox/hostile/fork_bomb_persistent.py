# attack: fork bomb that swallows EAGAIN and keeps the process table full until the judge stops it
# expect: TLE
# limits: cpu_time=1 wall_time=3
# untouched: host-processes no-leftovers
import os

while True:
    try:
        os.fork()
    except OSError:
        pass
