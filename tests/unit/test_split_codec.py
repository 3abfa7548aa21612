"""The two-process harness's codec and channel (sandbox/inside/split/), without a sandbox.

The program's side (S) runs in a thread over a socketpair, or is a forged peer that sends raw messages, as a
program that replaced S's code would. What is checked: data round trips keep their exact types; S's
objects arrive as handles; nothing of S is resolved by name in the tests' process (T); no object of T is
reachable from S beyond calling the callables the tests passed; a malformed message is a ProgramError.
"""

from __future__ import annotations

import builtins
import cmath
import collections
import datetime
import json
import math
import socket
import struct
import threading
from decimal import Decimal
from fractions import Fraction

import pytest

from judgebox.sandbox.inside import split
from judgebox.sandbox.inside.split import Channel, ProgramError, Remote

# -- helpers ---------------------------------------------------------------------------------------------

class Program:
    """S in a thread: ``Program(namespace)`` gives T's channel and the program's names as T sees them."""

    def __init__(self, namespace: dict) -> None:
        tests_end, program_end = socket.socketpair()
        self.thread = threading.Thread(target=split.program_side, args=(program_end, namespace), daemon=True)
        self.thread.start()
        self.channel = Channel(tests_end)
        self.names = split.tests_namespace(self.channel)

    def close(self) -> None:
        self.channel.sock.close()
        self.thread.join(5)


@pytest.fixture
def program():
    started = []

    def start(**namespace):
        started.append(Program(namespace))
        return started[-1].names
    yield start
    for each in started:
        each.close()


def send(sock: socket.socket, message) -> None:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    sock.sendall(struct.pack("!I", len(data)) + data)


def receive(sock: socket.socket):
    size, = struct.unpack("!I", sock.recv(4, socket.MSG_WAITALL))
    return json.loads(sock.recv(size, socket.MSG_WAITALL)) if size else None


def forged(*replies, received: list | None = None):
    """T's channel to a peer that answers each request of T with the next of ``replies`` (a dict, raw bytes,
    or a list of messages to send in a row); what T sends goes to ``received``."""
    tests_end, peer = socket.socketpair()
    received = [] if received is None else received

    def serve():
        try:
            for reply in replies:
                received.append(receive(peer))
                for message in (reply if isinstance(reply, list) else [reply]):
                    send(peer, message)
                    if isinstance(message, dict) and "op" in message:
                        received.append(receive(peer))
            received.append(receive(peer))
        except Exception:
            pass
        peer.close()
    threading.Thread(target=serve, daemon=True).start()
    return Channel(tests_end)


def from_program(value):
    """What T makes of ``value`` sent by S as a call's result."""
    return Remote(forged({"value": value}), 0)()


def decode(value):
    return split.TestsCodec(None).decode(value)  # type: ignore[arg-type]


# -- round trips -----------------------------------------------------------------------------------------

DATA = [
    None, True, False, 0, -7, 2 ** 63, -(2 ** 63), 10 ** 5000, -(10 ** 5000), 1.5, -0.0, float("inf"), float("-inf"),
    "text", "\udcff surrogate", b"\x00\xff", bytearray(b"ab"), 1 + 2j, complex(float("inf"), -1),
    (1, (2, [3, {4: "x"}])), [], [[]], {1, 2}, frozenset({"a"}), {"k": [1, 2], (1, 2): None},
    Fraction(1, 3), Fraction(10 ** 30, 7), Decimal("1.10"), Decimal("-Infinity"), collections.deque([1, [2]], maxlen=5),
    datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 6), datetime.time(23, 59),
    datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc), datetime.timedelta(days=-1, seconds=5, microseconds=7),
    range(1, 10, 3), range(0, 10 ** 30, 10 ** 20),
]


@pytest.mark.parametrize("value", DATA, ids=[type(v).__name__ + str(i) for i, v in enumerate(DATA)])
def test_data_crosses_both_ways_with_its_exact_type(program, value):
    names = program(echo=lambda x: x)
    back = names["echo"](value)
    assert type(back) is type(value)
    assert back == value or (back != back and value != value)
    if isinstance(value, collections.deque):
        assert back.maxlen == value.maxlen


def test_nan_crosses(program):
    names = program(echo=lambda x: x)
    assert math.isnan(names["echo"](float("nan")))
    assert math.isnan(names["echo"](complex(0, float("nan"))).imag)


def test_dict_views_cross_as_views(program):
    names = program(views=lambda: ({1: 2}.keys(), {1: 2}.values(), {1: 2}.items()))
    keys, values, items = names["views"]()
    assert keys == {1} and list(values) == [2] and items == {(1, 2)}
    assert values != [2]  # a values view equals nothing but itself, as in Python


def test_subclasses_of_builtin_types_arrive_as_the_builtin_type(program):
    class Sneaky(str):
        def __eq__(self, other):
            return True
        __hash__ = str.__hash__

    class Counted(dict):
        pass
    names = program(f=lambda: (Sneaky("a"), Counted(a=1), collections.OrderedDict(b=2), True))
    got = names["f"]()
    assert [type(item) for item in got] == [str, dict, dict, bool]
    assert got[0] != "b"


def test_a_big_int_beyond_the_digit_limit_crosses(program):
    names = program(f=lambda n: math.factorial(n))
    assert names["f"](2000) == math.factorial(2000)


# -- the program's objects: handles ----------------------------------------------------------------------

def test_the_programs_objects_are_handles_that_equal_no_data(program):
    class Always:
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__

        def __bool__(self):
            return True

        def __len__(self):
            return 3

        def __iter__(self):
            return iter([1, 2, 3])

    names = program(f=lambda: Always())
    value = names["f"]()
    assert isinstance(value, Remote)
    assert value != 1 and not (value == [1, 2, 3])
    assert bool(value) and len(value) == 3 and list(value) == [1, 2, 3] and 2 in value
    assert value == names["f"]()  # between two of the program's objects, the program's operators decide
    assert hash(value) == hash(value)


def test_the_programs_modules_and_functions_are_handles_not_imports(program):
    names = program(f=lambda: (math, math.sqrt, int))
    got = names["f"]()
    assert all(isinstance(item, Remote) for item in got)
    assert got[1](16) == 4.0


def test_a_program_module_global_gives_the_tests_their_own_standard_module_only():
    channel = forged({"value": {"globals": [["math", {"m": "math"}], ["cm", {"m": "cmath"}], ["np", {"m": "numpy"}],
                                            ["evil", {"m": "jbx_not_a_module"}], ["ag", {"m": "antigravity"}],
                                            ["rel", {"m": "..x"}], ["n", 3], ["__builtins__", 1]]}})
    names = split.tests_namespace(channel)
    assert names["math"] is math and names["cm"] is cmath and names["n"] == 3
    assert "evil" not in names and "ag" not in names and "rel" not in names
    assert names["__builtins__"] is builtins


# -- the tests' objects: never reachable ----------------------------------------------------------------

def test_a_callable_of_the_tests_crosses_call_only(program):
    seen = {}

    def probe(f):
        seen["type"] = type(f).__name__
        seen["dunder"] = hasattr(f, "__globals__") or hasattr(f, "__code__")
        return f(20) + f(x=1)

    names = program(probe=probe)
    assert names["probe"](lambda x: x + 1) == 23
    assert seen == {"type": "Callback", "dunder": False}


def test_standard_callables_and_modules_of_the_tests_are_the_programs_own(program):
    names = program(kinds=lambda t, f, m: (isinstance(3, t), f(-2), m.pi))
    assert names["kinds"](int, abs, math) == (True, 2, math.pi)


def test_an_iterator_of_the_tests_crosses_as_its_items(program):
    names = program(take=lambda it: (type(it).__name__, list(it)))
    assert names["take"](x * x for x in range(4)) == ("list_iterator", [0, 1, 4, 9])
    assert names["take"](map(str, [1, 2])) == ("list_iterator", ["1", "2"])


def test_a_value_of_the_tests_that_is_not_data_cannot_cross(program):
    class Node:
        pass
    names = program(f=lambda x: x)
    with pytest.raises(TypeError, match="cannot cross"):
        names["f"](Node())
    with pytest.raises(TypeError, match="cannot cross"):
        names["f"]((lambda: (yield)).__code__)


@pytest.mark.parametrize("request_", [
    {"op": "getattr", "target": 0, "name": "__globals__"},
    {"op": "setattr", "target": 0, "name": "__code__", "value": None},
    {"op": "globals"},
    {"op": "call", "target": 1, "args": {"l": []}, "kwargs": {"d": []}},  # a callback never passed
    {"op": "call", "target": 0, "args": {"l": []}, "kwargs": {"d": [[1, 2]]}},  # a kwargs key not a str
    {"op": "call", "target": 0, "args": {"g": ["os", "system"]}, "kwargs": {"d": []}},
])
def test_the_tests_refuse_every_request_but_calling_a_callback(request_):
    channel = forged([request_])
    with pytest.raises(ProgramError):
        Remote(channel, 0)(lambda: 1)


def test_a_callback_answers_with_data_and_refuses_to_return_what_cannot_cross():
    class Secret:
        pass
    call = {"op": "call", "target": 0, "args": {"l": [2]}, "kwargs": {"d": []}}
    received: list = []
    assert Remote(forged([call, {"value": 7}], received=received), 0)(lambda x: x * 21) == 7
    assert received[1] == {"value": 42}
    received.clear()
    assert Remote(forged([call, {"value": 7}], received=received), 0)(lambda x: Secret()) == 7
    assert received[1]["error"][0] == "TypeError" and "cannot cross" in received[1]["error"][1]


# -- exceptions ------------------------------------------------------------------------------------------

def test_a_programs_exception_keeps_its_builtin_kind(program):
    def fail(kind):
        raise {"value": ValueError("bad"), "key": KeyError("k"), "zero": ZeroDivisionError("z")}[kind]
    names = program(fail=fail)
    with pytest.raises(ValueError, match="bad"):
        names["fail"]("value")
    with pytest.raises(KeyError):
        names["fail"]("key")
    with pytest.raises(ZeroDivisionError):
        names["fail"]("zero")


@pytest.mark.parametrize("kind", [StopIteration, StopAsyncIteration, GeneratorExit, KeyboardInterrupt, SystemExit])
def test_control_flow_exceptions_of_the_program_are_a_program_error(program, kind):
    def fail():
        raise kind
    names = program(fail=fail)
    with pytest.raises(ProgramError, match=kind.__name__):
        names["fail"]()
    assert all(map(lambda _: True, [1]))
    with pytest.raises(ProgramError):
        all(map(lambda _: names["fail"](), [1, 2]))  # does not end the map early: it fails


def test_an_exception_class_named_like_a_builtin_is_not_the_builtin(program):
    class StopIteration(Exception):
        pass

    class ValueError(Exception):
        pass

    def fail(which):
        raise (StopIteration if which else ValueError)("x")
    names = program(fail=fail)
    for which in (0, 1):
        with pytest.raises(Exception) as caught:
            names["fail"](which)
        assert type(caught.value) is Exception


@pytest.mark.parametrize("error, kind", [
    (["StopIteration", ""], ProgramError), (["SystemExit", "0"], ProgramError),
    (["GeneratorExit", ""], ProgramError), (["BaseException", ""], ProgramError), (["ValueError", "v"], ValueError),
    (["UnicodeDecodeError", "u"], UnicodeError), (["ExceptionGroup", "g"], Exception),
    (["os.system", "x"], ProgramError), ([1, 2], ProgramError), ("ValueError", ProgramError),
])
def test_forged_errors(error, kind):
    with pytest.raises(Exception) as caught:
        Remote(forged({"error": error}), 0)()
    assert type(caught.value) is kind


# -- what S answers is checked ---------------------------------------------------------------------------

@pytest.mark.parametrize("op, answer", [
    (bool, 1), (bool, {"l": [1]}), (bool, {"ref": 1}), (len, True), (len, -1), (len, "3"), (repr, 3), (repr, {"b": ""}),
    (list, {"ref": 0}), (list, {"t": [1]}), (list, "abc"),
])
def test_wrongly_typed_answers_are_a_program_error(op, answer):
    with pytest.raises(ProgramError):
        op(Remote(forged({"value": answer}), 0))


@pytest.mark.parametrize("value", [
    {"g": ["unittest.mock", "ANY"]}, {"m": "os"}, {"dt": ["datetime", "2020-01-01"]}, {"n": 1}, {"cb": 0}, {"it": []},
    {"own": 0}, {"ref": -1}, {"ref": True}, {"ref": "0"}, [1, 2], {"l": [1], "t": [2]}, {}, {"x": "1.5"}, {"x": 1},
    {"i": "12 + 3"}, {"i": 5}, {"i": "f" * (split.MAX_HEX_DIGITS + 1)}, {"s": [{"l": []}]}, {"d": [[{"l": []}, 1]]},
    {"d": [[1]]}, {"q": [1, 0]}, {"q": [1.5, 2]}, {"c": [1, "2"]}, {"b": "not base64!"}, {"dq": [[1], -1]},
    {"date": "2020-13-01"}, {"td": [1, 2]}, {"r": [1, 2, 0]}, {"l": {"l": []}}, {"dec": 5}, {"datetime": "x" * 1000},
])
def test_malformed_or_foreign_values_are_a_program_error(value):
    with pytest.raises(ProgramError):
        decode(value)
    with pytest.raises(ProgramError):
        from_program(value)


def test_nesting_is_bounded():
    deep = 0
    for _ in range(split.MAX_DEPTH + 5):
        deep = {"l": [deep]}
    with pytest.raises(ProgramError, match="deeper"):
        decode(deep)
    fine = 0
    for _ in range(split.MAX_DEPTH - 1):
        fine = {"l": [fine]}
    assert decode(fine)


@pytest.mark.parametrize("raw", [
    b"[" * 100_000 + b"]" * 100_000, b'{"value":1' + b"0" * 10_000 + b"}", b"not json", b'{"value": 1, "error": 2}',
    b"[]", b'"value"',
])
def test_malformed_messages_are_a_program_error_and_break_the_channel(raw):
    channel = forged(raw)
    with pytest.raises(ProgramError):
        Remote(channel, 0)()


def test_an_oversized_message_is_refused_before_it_is_read():
    tests_end, peer = socket.socketpair()
    channel = Channel(tests_end)

    def serve():
        receive(peer)
        peer.sendall(struct.pack("!I", 0xFFFFFFFF))
    threading.Thread(target=serve, daemon=True).start()
    with pytest.raises(ProgramError, match="bytes"):
        Remote(channel, 0)()
    with pytest.raises(ProgramError):  # the stream cannot line up again: every later request fails
        Remote(channel, 0)()


def test_names_the_program_binds_over_builtins_modules_and_module_aliases_are_dropped():
    program_names = [["f", {"ref": 0}], ["np", {"ref": 1}], ["math", {"ref": 2}], ["set", {"ref": 3}],
                     ["cmath", {"m": "cmath"}], ["data", {"l": [1]}]]
    names = split.tests_namespace(forged({"value": {"globals": program_names}}), {"f", "np", "math", "set"})
    assert set(names) == {"f", "cmath", "data", "__builtins__", "__name__"}
    kept = split.tests_namespace(forged({"value": {"globals": program_names}}), {"set"})  # def set(...) under test
    assert isinstance(kept["set"], Remote)
