# attack: memory bomb in a forked child while the parent looks innocent (the limit covers the whole tree)
# expect: MLE
# limits: memory_mb=128
# untouched: no-leftovers
import os

pid = os.fork()
if pid == 0:
    hog = []
    while True:
        hog.append(bytearray(1 << 20))
os.waitpid(pid, 0)
print("blocked")
