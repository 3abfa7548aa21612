# attack: the program exits at once; a child it leaves behind writes stdout and stderr (dense and sparse)
#   after it, while the judge collects the run
# expect: AC WA OLE
# limits: output_bytes=8388608
# untouched: returned-output no-leftovers
import os
import time

if os.fork() == 0:
    time.sleep(0.02)
    for fd in (1, 2):
        try:
            os.write(fd, b"y" * (2 << 20))
            os.ftruncate(fd, 7 << 20)
        except OSError:
            pass
    time.sleep(5)
    os._exit(0)
print("blocked", flush=True)
os._exit(0)
