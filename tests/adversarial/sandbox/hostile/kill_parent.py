# attack: kill the parent (the slot's zygote), init, and everything else with kill(-1, SIGKILL)
# expect: AC
# untouched: host-processes no-leftovers
import os
import signal
import time

child = os.fork()
if child == 0:
    time.sleep(100)
    os._exit(0)
for target in (os.getppid(), 1, -1):  # kill(-1) spares the caller, so we survive to tell
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
        try:
            os.kill(target, sig)
        except OSError:
            pass
time.sleep(0.2)
print("blocked")
