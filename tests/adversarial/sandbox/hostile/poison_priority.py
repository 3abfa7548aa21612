# attack: renice the slot's worker (pid 1), its process group, every process of the slot's uid, and its
#   autogroup, so that every later run starts at nice 19
# expect: AC
# untouched: host-processes no-leftovers
import os
import sys

uid = os.getuid()
for which, who in [(os.PRIO_PROCESS, 1), (os.PRIO_PGRP, 0), (os.PRIO_PGRP, 1), (os.PRIO_USER, uid),
                   (os.PRIO_USER, 0), *((os.PRIO_PROCESS, pid) for pid in range(2, 64) if pid != os.getpid())]:
    try:
        os.setpriority(which, who, 19)
        print("reniced", which, who, file=sys.stderr)
    except OSError:
        pass
for pid in (1, 2, 3):
    for knob, value in (("autogroup", "19"), ("timerslack_ns", "1000000000")):
        try:
            with open(f"/proc/{pid}/{knob}", "w") as f:
                f.write(value)
            print("wrote", knob, "of pid", pid, file=sys.stderr)
        except OSError:
            pass
print("blocked")
