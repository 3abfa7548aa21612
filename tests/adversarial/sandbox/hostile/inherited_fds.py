# attack: look for descriptors inherited from the judge (its control socket, the Landlock ruleset, other runs' files)
# expect: AC
# untouched: host-processes
import os

expected = {0: "stdin", 1: "stdout", 2: "stderr", 3: "result", 4: "token"}
for fd in range(1024):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        continue
    if fd not in expected or f"judgebox-{expected[fd]}" not in target:
        print("INHERITED", fd, target)
print("blocked")
