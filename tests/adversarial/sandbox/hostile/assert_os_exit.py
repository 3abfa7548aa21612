# attack: leave with status 0 before the asserts run (os._exit, which skips every Python handler)
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
import os


def f(x):
    return 0


os._exit(0)
