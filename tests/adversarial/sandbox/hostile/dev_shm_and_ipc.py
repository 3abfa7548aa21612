# attack: write to /dev/shm (must be the slot's own), look for the host's System V IPC and POSIX shm objects
# expect: AC
# untouched: host-tmp
import os

with open("/dev/shm/{MARKER}", "w") as f:  # private to the slot: allowed, must not reach the host's /dev/shm
    f.write("shm\n")
for table in ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"):
    try:
        with open(table) as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        continue
    if rows:
        print("SEEN", table, rows[:2])
others = [name for name in os.listdir("/dev/shm") if name != "{MARKER}"]
if others:
    print("SEEN /dev/shm", others[:5])
print("blocked")
