# attack: fill the work folder and /dev/shm (tmpfs caps: 64 MiB and 16 MiB), then exhaust their inodes
# expect: AC
# limits: memory_mb=256 cpu_time=4
# untouched: no-leftovers host-processes
import os

for folder, cap in (("/tmp", 64 << 20), ("/dev/shm", 16 << 20)):
    written, block = 0, b"\0" * (1 << 20)
    try:
        for i in range(1000):
            with open(f"{folder}/fill{i}", "wb") as f:
                for _ in range(8):
                    written += f.write(block)
    except OSError:
        pass
    if written > cap + (8 << 20):
        print("OVERFILLED", folder, written >> 20, "MiB")
    created = 0
    try:
        os.mkdir(f"{folder}/inodes")
        for created in range(100_000):
            open(f"{folder}/inodes/{created}", "w").close()
    except OSError:
        pass
    if created > 20_000:
        print("INODES", folder, created)
print("blocked")
