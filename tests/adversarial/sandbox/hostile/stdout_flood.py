# attack: infinite output on stdout
# expect: OLE
# limits: output_bytes=1048576 file_size_bytes=1048576
# untouched: no-leftovers
import sys

chunk = "x" * 65536
while True:
    sys.stdout.write(chunk)
