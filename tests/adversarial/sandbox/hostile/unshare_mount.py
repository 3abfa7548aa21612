# attack: new user/mount namespaces (to get capabilities), mount over the filesystem, chroot, pivot_root
# expect: AC
# untouched: host-processes canary
import ctypes
import os
import subprocess

libc = ctypes.CDLL(None, use_errno=True)
for name, flag in (("user", 0x10000000), ("mount", 0x00020000), ("net", 0x40000000), ("pid", 0x20000000),
                   ("user+mount", 0x10020000)):
    if libc.unshare(flag) == 0:
        print("UNSHARED", name)
os.makedirs("/tmp/mnt", exist_ok=True)
if libc.mount(b"none", b"/tmp/mnt", b"tmpfs", 0, None) == 0:
    print("MOUNTED tmpfs")
if libc.mount(b"/etc", b"/tmp/mnt", None, 4096, None) == 0:  # MS_BIND
    print("MOUNTED bind")
if libc.umount2(b"/proc", 2) == 0:
    print("UNMOUNTED /proc")
try:
    os.chroot("/tmp")
    print("CHROOTED")
except OSError:
    pass
if os.path.exists("/usr/bin/unshare"):
    done = subprocess.run(["/usr/bin/unshare", "-r", "id", "-u"], capture_output=True)
    if done.returncode == 0:
        print("UNSHARE binary", done.stdout)
print("blocked")
