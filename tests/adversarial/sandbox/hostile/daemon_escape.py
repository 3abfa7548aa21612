# attack: double-forked daemon that outlives the run, then writes markers and keeps spinning
# expect: AC
# untouched: no-leftovers host-tmp host-processes
import os
import signal
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        os.closerange(0, 64)
        time.sleep(0.5)
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            try:
                with open(f"{folder}/{MARKER}", "w") as f:
                    f.write("daemon\n")
            except OSError:
                pass
        while True:
            time.sleep(1)
    os._exit(0)
print("blocked")
sys.stdout.flush()
