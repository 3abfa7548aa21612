# attack: write a fake pass marker into the harness's result fd 3, then leave with status 0
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
import os

os.ftruncate(3, 0)
os.pwrite(3, b"asserts\n" + b"\0" * 32, 0)
os.write(3, b"asserts\n")
os._exit(0)
