# attack: classic fork bomb; every process forks forever and crashes when the pids cgroup is full
# expect: RE TLE
# limits: cpu_time=2
# untouched: host-processes no-leftovers
import os

while True:
    os.fork()
