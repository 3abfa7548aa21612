# attack: become root or another user: setuid/setgid/setgroups, capset, and a setuid binary under no_new_privs
# expect: AC
# untouched: host-processes
import ctypes
import os
import subprocess

other = 61000 if os.getuid() != 61000 else 61001  # another slot's uid
for name, call in (("setuid", lambda: os.setuid(0)), ("setgid", lambda: os.setgid(0)),
                   ("setresuid", lambda: os.setresuid(0, 0, 0)), ("setgroups", lambda: os.setgroups([0])),
                   ("seteuid", lambda: os.seteuid(other)), ("setreuid", lambda: os.setreuid(1000, 1000))):
    try:
        call()
        print("CHANGED", name)
    except OSError:
        pass
libc = ctypes.CDLL(None, use_errno=True)
header = ctypes.create_string_buffer(b"\x22\x05\x08\x20" + b"\0" * 4, 8)  # _LINUX_CAPABILITY_VERSION_3, pid 0
full = ctypes.create_string_buffer(b"\xff" * 24, 24)
if libc.capset(header, full) == 0:
    print("CAPSET allowed")
for binary in ("/usr/bin/newgrp", "/usr/bin/chsh", "/bin/mount"):
    if os.path.exists(binary) and os.stat(binary).st_mode & 0o4000:
        try:
            done = subprocess.run([binary], stdin=subprocess.DEVNULL, capture_output=True, timeout=2)
            if b"uid=0" in done.stdout:
                print("ROOT via", binary)
        except (OSError, subprocess.SubprocessError):
            pass
if os.getuid() == 0 or os.geteuid() == 0 or os.getgid() == 0:
    print("ROOT", os.getresuid(), os.getresgid())
print("blocked")
