# attack: make stdout, stderr and every other descriptor huge and sparse (ftruncate, no byte written), as
#   large as the file-size limit lets it, over the output limit or just under it: costs the program
#   milliseconds, and the judge reads (and keeps) all of it for each of the cases
# expect: OLE WA
# limits: output_bytes=8388608
# cases: 6
# variants: over-cap under-cap
# untouched: returned-output no-leftovers
import os

sizes = {"over-cap": (4 << 30, 1 << 30, 60 << 20), "under-cap": (6 << 20,)}["{VARIANT}"]
for fd in range(1, 64):
    for size in sizes:
        try:
            os.ftruncate(fd, size)
            break
        except OSError:
            continue
