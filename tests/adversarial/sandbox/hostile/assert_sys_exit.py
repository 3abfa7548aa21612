# attack: leave with status 0 before the asserts run (sys.exit)
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
import sys


def f(x):
    return 0


sys.exit(0)
