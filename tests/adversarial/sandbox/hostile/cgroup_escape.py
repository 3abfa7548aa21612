# attack: leave the slot's cgroups or lift their limits through /sys/fs/cgroup
# expect: AC
# untouched: host-processes
import os

me = str(os.getpid())
with open("/proc/self/cgroup") as f:
    groups = [line.rstrip("\n").split(":", 2) for line in f]
for _, controllers, path in groups:
    for controller in controllers.split(","):
        base = f"/sys/fs/cgroup/{controller}"
        for knob, value in (("cgroup.procs", me), (path.lstrip("/") + "/memory.limit_in_bytes", "-1"),
                            (path.lstrip("/") + "/pids.max", "max"), ("release_agent", "/tmp/x"),
                            (path.lstrip("/") + "/notify_on_release", "1")):
            try:
                with open(os.path.join(base, knob), "w") as f:
                    f.write(value)
                print("WROTE", controller, knob)
            except OSError:
                pass
        try:
            os.mkdir(os.path.join(base, path.lstrip("/"), "jbx-child"))
            print("MKDIR", controller)
        except OSError:
            pass
print("blocked")
