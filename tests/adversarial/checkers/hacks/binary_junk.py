# why: NULs, invalid UTF-8 and control bytes where numbers belong, to crash the checker's reader
# problem: pair
import sys

sys.stdout.buffer.write(b"\x00\xff\xfe5\x00 5\r\x1b[2J\x00" * 10000)
