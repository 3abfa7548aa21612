# attack: fill a run's folder at an absolute path (or the root, if no folder was made) past every cap: a huge file, then
#   inodes
# expect: AC
# untouched: host-tmp canary
import os

top = "/mnt" if os.path.isdir("/mnt") else "/"
written = 0
try:
    with open(os.path.join(top, "huge"), "wb") as f:
        block = b"\0" * (1 << 20)
        while written < (1 << 30):
            f.write(block)
            written += len(block)
    print("WROTE 1 GiB at", top)
except OSError:
    pass
if written > 128 << 20:
    print("WROTE past the folder's cap:", written)
try:
    os.remove(os.path.join(top, "huge"))
except OSError:
    pass
made = 0
try:
    while made < 100_000:
        open(os.path.join(top, f"i{made}"), "w").close()
        made += 1
    print("WROTE 100000 inodes at", top)
except OSError:
    pass
print("blocked")
