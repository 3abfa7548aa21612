# attack: symlinks and hard links in the work folder to protected files (shadow, the judge's source, canaries)
# expect: AC
# untouched: canary
import os

targets = ["/etc/shadow", "/work/main/src/judgebox/judging/judge.py", "/root/.bashrc", "/proc/1/environ",
           "/proc/1/root/etc/shadow", *{CANARY_PATHS}]
for i, target in enumerate(targets):
    link = f"/tmp/link{i}"
    os.symlink(target, link)
    for attempt in (link, f"/tmp/./link{i}/", f"/proc/self/cwd/link{i}"):
        try:
            with open(attempt, "rb") as f:
                print("LEAKED", target, f.read(40))
        except OSError:
            pass
    try:
        os.link(target, f"/tmp/hard{i}")
        print("HARDLINKED", target)
    except OSError:
        pass
os.symlink("/", "/tmp/root")
for path in ("/tmp/root/work", "/tmp/root/root", "/tmp/root/var/tmp"):
    try:
        print("LISTED", path, os.listdir(path)[:3])
    except OSError:
        pass
print("blocked")
