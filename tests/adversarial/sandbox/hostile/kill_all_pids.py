# attack: signal every pid number (SIGKILL), every process group and session, hoping to hit other runs or the judge
# expect: AC
# untouched: host-processes no-leftovers
import os
import signal

me = os.getpid()
for pid in range(1, 1 << 16):
    if pid == me:
        continue
    for target in (pid, -pid):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
print("blocked")
