# attack: make stdout huge without writing it (sparse ftruncate), so the judge reads gigabytes
# expect: AC
# limits: output_bytes=1048576 file_size_bytes=1048576
# untouched: no-leftovers
import os

for fd in (1, 2):
    try:
        os.ftruncate(fd, 4 << 30)
    except OSError:
        continue
    os.ftruncate(fd, 0)
    os.write(1, b"GREW\n")
os.lseek(1, 0, os.SEEK_SET)
print("blocked")
