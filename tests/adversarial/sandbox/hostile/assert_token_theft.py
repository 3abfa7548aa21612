# attack: read the per-case pass token from fd 4 and forge the harness's pass record in fd 3
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
import os

token = os.pread(4, 32, 0)
os.ftruncate(3, 0)
os.pwrite(3, b"asserts\n" + token, 0)
os._exit(0)
