# attack: write files outside the private work folder: system folders, other users' temp folders, kernel knobs
# expect: AC
# untouched: host-tmp canary
import os

for folder in ("/etc", "/usr", "/usr/local/bin", "/usr/lib/python3/dist-packages", "/var/tmp", "/root", "/work",
               "/work/main", "/work/main/src/judgebox", "/home", "/opt", "/run", "/var/lib", "/proc/1/root/tmp",
               "/proc/1/cwd"):
    try:
        with open(os.path.join(folder, "{MARKER}"), "w") as f:
            f.write("pwned\n")
        print("WROTE", folder)
    except OSError:
        pass
for knob, value in (("/proc/sys/kernel/core_pattern", "|/tmp/{MARKER}"), ("/proc/sysrq-trigger", "h"),
                    ("/proc/sys/vm/drop_caches", "3"), ("/sys/kernel/mm/transparent_hugepage/enabled", "never")):
    try:
        with open(knob, "w") as f:
            f.write(value)
        print("WROTE", knob)
    except OSError:
        pass
with open("/tmp/{MARKER}", "w") as f:  # the private /tmp is the sandbox's own: this must work, and stay inside
    f.write("inside\n")
print("blocked")
