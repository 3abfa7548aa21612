# attack: lower one rlimit of the slot's worker (pid 1) and of every other process of the slot's uid (the
#   spare run), so that every later run forked from it inherits it; one limit per variant, as a very low
#   open-file limit alone kills the worker (a new one then replaces it) and would hide the others
# expect: AC
# variants: NOFILE NOFILE_TINY AS CPU FSIZE STACK DATA NPROC
#   SIGPENDING MEMLOCK MSGQUEUE RTTIME
# untouched: host-processes no-leftovers
import os
import resource
import sys

LOWERED = {"RLIMIT_NOFILE": 32, "RLIMIT_NOFILE_TINY": 8, "RLIMIT_AS": 64 << 20, "RLIMIT_CPU": 1,
           "RLIMIT_FSIZE": 4096, "RLIMIT_STACK": 64 << 10, "RLIMIT_DATA": 64 << 20, "RLIMIT_MEMLOCK": 0,
           "RLIMIT_MSGQUEUE": 0, "RLIMIT_SIGPENDING": 1, "RLIMIT_RTTIME": 1, "RLIMIT_NPROC": 1}
name = "RLIMIT_{VARIANT}"
value = LOWERED[name]
name = name.removesuffix("_TINY")  # so few open files that the worker itself breaks (then it is replaced)
for pid in [1] + [pid for pid in range(2, 64) if pid != os.getpid()]:
    try:
        resource.prlimit(pid, getattr(resource, name), (value, value))
        print("lowered", name, "of pid", pid, file=sys.stderr)
    except (OSError, ValueError):
        pass
print("blocked")
