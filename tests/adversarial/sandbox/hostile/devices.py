# attack: open device nodes: kernel log, physical memory, kvm, disks, consoles, model-specific registers
# expect: AC
# untouched: host-processes
import os

for path in ("/dev/kmsg", "/dev/mem", "/dev/kvm", "/dev/loop0", "/dev/console", "/dev/tty0", "/dev/hwrng",
             "/dev/cpu/0/msr", "/dev/fuse", "/dev/btrfs-control", "/dev/loop-control", "/dev/cpu_dma_latency"):
    for flags in (os.O_RDONLY, os.O_RDWR):
        try:
            fd = os.open(path, flags | os.O_NONBLOCK)
        except OSError:
            continue
        os.close(fd)
        print("OPENED", path, flags)
try:
    with open("/dev/null", "w") as f, open("/dev/zero", "rb") as z:  # the harmless ones must work
        f.write(str(len(z.read(16))))
except OSError:
    print("BROKEN /dev/null")
print("blocked")
