# attack: look at the host through /sys/fs/cgroup (other judges' live memory, CPU and process counts) and
#   stat host paths a run has no business with (the judge's checkout and venv, homes, /run, /opt)
# expect: AC
# untouched: host-processes
import os

ROOT = "/sys/fs/cgroup"
HIDDEN = ("/root", "/home", "/work", "/work/main", "/var/cache/apt", "/var/log", "/var/lib", "/opt", "/run",
          *"{JUDGE_DIRS}".split(","))
NEEDED = ("/usr", "/etc", "/lib", "/lib64", "/bin", "/tmp", "/dev/null", "/proc/self")
with open("/proc/self/cgroup") as f:  # the run's group in each hierarchy; "/" is the host's root: not its own
    own = {line.rstrip("\n").split(":", 2)[2].rstrip("/") for line in f} - {""}


def lists_me(folder: str) -> bool:
    """The run's own group, wherever it is shown: its cgroup.procs lists this process."""
    try:
        with open(os.path.join(folder, "cgroup.procs")) as f:
            return str(os.getpid()) in f.read().split()
    except OSError:
        return False


def where(folder: str) -> str:
    """"own" for the run's group or below it, "above" for a folder on the way down to it, else "other".
    cgroup v1 mounts each hierarchy at ROOT/<controller>, v2 at ROOT itself: both readings are tried (and a
    group shown elsewhere, e.g. bound at ROOT/<controller>, is known by its cgroup.procs)."""
    if any(folder == f or folder.startswith(f + "/") for f in own_folders) or lists_me(folder):
        own_folders.add(folder)
        return "own"
    rel = "/" + os.path.relpath(folder, ROOT).strip(".").strip("/")
    readings = {rel.rstrip("/"), ("/" + rel.strip("/").partition("/")[2]).rstrip("/")}
    if any(r == p or r.startswith(p + "/") for r in readings for p in own):
        return "own"
    if folder == ROOT or any(p.startswith(r + "/") for r in readings for p in own):
        return "above"
    return "other"


own_folders: set[str] = set()
leaks: dict[str, list[str]] = {}  # kind -> what
for count, (folder, _, files) in enumerate(os.walk(ROOT)):
    if count > 5000:
        break
    place = where(folder)
    if place == "other":
        leaks.setdefault("cgroup folder", []).append(folder)
    for name in files if place != "own" else ():
        try:
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read(64)
            leaks.setdefault("cgroup file", []).append(f"{folder}/{name}: {data[:30]!r}")
        except OSError:
            pass
for path in HIDDEN:
    try:
        os.stat(path)
        leaks.setdefault("stat", []).append(path)
    except OSError:
        pass
for path in NEEDED:
    try:
        os.stat(path)
    except OSError as exc:
        leaks.setdefault("MISSING (runs need it)", []).append(f"{path}: {exc.strerror}")
for kind, found in leaks.items():
    print(f"LEAKED {kind}: {len(found)}, e.g.", *found[:4])
if not leaks:
    print("blocked")
