# attack: walk up the stack into the forked harness and call its own _pass() before the asserts run
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
import sys

frame = sys._getframe()
while frame is not None and "_pass" not in frame.f_globals:
    frame = frame.f_back
if frame is not None:
    frame.f_globals["_pass"](b"asserts", sys.stdout, sys.stderr)


def f(x):
    return 0
