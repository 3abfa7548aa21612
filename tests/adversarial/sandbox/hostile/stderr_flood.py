# attack: infinite output on stderr
# expect: OLE
# limits: output_bytes=1048576 file_size_bytes=1048576
# untouched: no-leftovers
import os

chunk = b"e" * 65536
while True:
    os.write(2, chunk)
