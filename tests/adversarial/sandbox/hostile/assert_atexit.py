# attack: an atexit hook and an exception hook that force status 0 after a failed assert
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
import atexit
import os
import sys

atexit.register(os._exit, 0)
sys.excepthook = lambda *args: os._exit(0)


def f(x):
    return 0
