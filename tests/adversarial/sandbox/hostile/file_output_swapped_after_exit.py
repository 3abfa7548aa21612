# attack: file mode: output.txt left as a link to the right answer, and a child that outlives the program
#         swapping it for links to protected files (the canaries among them), racing the zygote's read of the
#         judged output: it follows no link (the output is none: WA) and reads once every process is dead
# expect: WA
# kind: file
# untouched: canary slot-reusable no-leftovers
import os
import time

targets = [*{CANARY_PATHS}, "/etc/shadow", "/proc/1/environ"]


def swap(target):
    try:
        os.symlink(target, "swap")
        os.replace("swap", "output.txt")
    except OSError:
        pass


parent = os.getpid()
if os.fork() == 0:
    os.setsid()
    while os.getppid() == parent:  # until the program has ended
        pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for target in targets:
            swap(target)
    os._exit(0)
with open("answer", "w") as f:
    f.write("blocked\n")
swap(os.path.abspath("answer"))
os._exit(0)
