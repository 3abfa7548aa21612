# attack: SIGSTOP everything reachable (so other runs hang until their wall backstop), then idle
# expect: AC
# untouched: host-processes no-leftovers
import os
import signal

for target in [-1, *range(1, 4096)]:
    if target in (os.getpid(), 0):
        continue
    try:
        os.kill(target, signal.SIGSTOP)
    except OSError:
        pass
print("blocked")
