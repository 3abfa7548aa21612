# attack: harvest secrets from every environment and command line in /proc (the test's JUDGEBOX_TEST_SECRET)
# expect: AC
# untouched: judge-env canary
import os
import re

secret = re.compile(rb"jbx-" + rb"secret-[a-z]+-[0-9a-f]{8,}|JUDGEBOX_TEST_SECRET")
me = str(os.getpid())
for pid in ["1", "self", *os.listdir("/proc")]:
    if not (pid.isdigit() or pid == "self"):
        continue
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                data = f.read()
        except OSError:
            continue
        for found in set(secret.findall(data)):
            print("LEAKED", pid, name, found.decode())
        if name == "environ" and pid not in ("self", me) and data:
            print("ENVIRON of", pid, data[:200])
print("blocked")
