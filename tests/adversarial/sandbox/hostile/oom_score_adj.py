# attack: lower our OOM score (so the host's processes die first) and raise the zygote's so it dies instead
# expect: AC
# untouched: host-processes
for path, value in (("/proc/self/oom_score_adj", "-1000"), ("/proc/self/oom_score_adj", "0"),
                    ("/proc/self/oom_adj", "-17"), ("/proc/1/oom_score_adj", "1000")):
    try:
        with open(path, "w") as f:
            f.write(value)
        print("CHANGED", path, value)
    except OSError:
        pass
with open("/proc/self/oom_score_adj") as f:
    if int(f.read()) != 1000:
        print("LOWERED")
print("blocked")
