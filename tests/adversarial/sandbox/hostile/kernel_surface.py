# attack: raw syscalls into risky kernel interfaces: io_uring, bpf, keyctl, perf, userfaultfd, modules, kexec, time
# expect: AC
# untouched: host-processes
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
buffer = ctypes.create_string_buffer(256)
calls = {
    "io_uring_setup": (425, 4, buffer),
    "bpf(MAP_CREATE)": (321, 0, ctypes.create_string_buffer(b"\x02\0\0\0\x04\0\0\0\x04\0\0\0\x01\0\0\0", 64), 64),
    "keyctl(GET_KEYRING_ID)": (250, 0, -3, 0),
    "add_key": (248, b"user", b"jbx", b"payload", 7, -2),
    "perf_event_open": (298, buffer, 0, -1, -1, 0),
    "userfaultfd": (323, 0),
    "init_module": (175, buffer, 16, b""),
    "kexec_load": (246, 0, 0, None, 0),
    "open_by_handle_at": (304, -100, buffer, 0),
    "settimeofday": (164, None, None),
    "clock_settime": (227, 0, buffer),
    "sethostname": (170, b"pwned", 5),
    "syslog(READ_ALL)": (103, 3, buffer, 256),
    "acct": (163, None),
    "swapoff": (168, b"/tmp"),
    "iopl": (172, 3),
    "fanotify_init": (300, 0, 0),
}
for name, (number, *args) in calls.items():
    if libc.syscall(number, *args) >= 0:
        print("ALLOWED", name)
print("blocked")
