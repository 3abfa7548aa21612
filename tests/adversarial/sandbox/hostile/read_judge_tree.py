# attack: find and read the judge's own source and data (its path is in the forked harness's frames and modules)
# expect: AC
# untouched: canary
import os
import sys

paths = {"/work", "/work/main", "/work/main/src/judgebox/judging/judge.py", "/work/shared", "/root", "/root/.pyenv"}
frame = sys._getframe()
while frame is not None:  # the harness was forked from the zygote: its frames name the judge's files
    paths.add(frame.f_code.co_filename)
    paths.add(frame.f_globals.get("__file__") or "")
    frame = frame.f_back
for path in sorted(paths):
    if not os.path.isabs(path):
        continue
    try:
        print("LISTED", path, os.listdir(path)[:5])
        continue
    except NotADirectoryError:
        pass
    except OSError:
        continue
    try:
        with open(path, "rb") as f:
            print("LEAKED", path, f.read(40))
    except OSError:
        pass
for path in ("/usr", "/proc", "/etc"):  # reading system folders is allowed; print nothing for them
    os.listdir(path)
print("blocked")
