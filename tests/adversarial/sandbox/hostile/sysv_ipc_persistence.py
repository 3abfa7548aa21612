# attack: System V IPC objects outlive the run: a channel to later runs of the slot, and memory nobody frees
# expect: AC
# cases: 2
# untouched: slot-reusable
import ctypes

for table in ("shm", "msg", "sem"):
    with open(f"/proc/sysvipc/{table}") as f:
        for row in f.read().splitlines()[1:]:
            print("LEFTOVER", table, " ".join(row.split()[:6]))
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
IPC_CREAT, IPC_PRIVATE, KEY = 0o1000, 0, 0x6A6278
hoard = libc.shmget(IPC_PRIVATE, 32 << 20, IPC_CREAT | 0o600)  # 32 MiB, touched, never removed
if hoard >= 0:
    ctypes.memset(libc.shmat(hoard, None, 0), 1, 32 << 20)
note = libc.shmget(KEY, 4096, IPC_CREAT | 0o600)
if note >= 0:
    ctypes.memmove(libc.shmat(note, None, 0), b"left by an earlier run", 22)
queue = libc.msgget(KEY, IPC_CREAT | 0o600)
message = ctypes.create_string_buffer(b"\1\0\0\0\0\0\0\0left by an earlier run")
libc.msgsnd(queue, message, 22, 0o4000)  # IPC_NOWAIT
libc.semget(KEY, 4, IPC_CREAT | 0o600)
print("blocked")
