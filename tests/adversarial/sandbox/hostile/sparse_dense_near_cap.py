# attack: write real bytes just under the output limit to stdout and to stderr in each case, which the
#   judge may keep whole for every case of the submission
# expect: WA
# limits: output_bytes=8388608
# cases: 3
# untouched: returned-output
import os

block = b"x" * (1 << 20)
for fd in (1, 2):
    for _ in range(7):
        os.write(fd, block)
