# attack: walk /proc looking for the judge, the test runner, the host's sleeper ({SLEEPER_TAG}) and other runs
# expect: AC
# untouched: host-processes
import os

me, mine = os.getuid(), str(os.getpid())
for pid in os.listdir("/proc"):
    if not pid.isdigit() or pid == mine:  # our own cmdline is the zygote's (we are its fork)
        continue
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ")
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        continue
    if uid != me or any(word in cmdline for word in (b"{SLEEPER_TAG}", b"pytest", b"judgebox", b"zygote")):
        print("SEEN", pid, uid, cmdline[:80])
for path in ("/proc/1/status", "/proc/1/cmdline", "/proc/1/maps", "/proc/1/fd"):
    try:
        print("LEAKED", path, os.listdir(path) if path.endswith("fd") else open(path, "rb").read(60))
    except OSError:
        pass
print("blocked")
