# attack: answer the call harness with a message that is not one: a 4 GiB length prefix, then never anything;
#   the tests' process must call it the program's failure (RE), not the judge's (SE), and not read 4 GiB
# expect: RE
# kind: call
# call: f
# args: [2]
# returns: 4
import struct
import sys


def f(x):
    frame = sys._getframe(1)
    while frame is not None and not hasattr(frame.f_locals.get("self"), "sock"):
        frame = frame.f_back
    frame.f_locals["self"].sock.sendall(struct.pack("!I", 0xFFFFFFFF) + b"{" * 1000)
    return 4
