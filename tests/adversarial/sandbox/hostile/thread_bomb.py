# attack: thread bomb; threads count against the pids cgroup like processes
# expect: RE TLE
# limits: cpu_time=2
# untouched: host-processes no-leftovers
import threading
import time

while True:
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
