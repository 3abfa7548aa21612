"""The sandbox protocol's records and names (sandbox/inside/protocol.py), without root and without a sandbox.

The judge and a slot's zygote are both ours, so a message one of them cannot read is a bug on one end: these
tests pin that every request survives the wire as it was built, and that anything else is refused, never
guessed at.
"""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from dataclasses import fields
from pathlib import Path

import pytest

from judgebox.sandbox.inside import protocol
from judgebox.sandbox.inside.protocol import (
    EVERY_RUN_FDS,
    KIND_FIELDS,
    FdName,
    Note,
    Op,
    RunKind,
    RunLimits,
    RunNote,
    RunRequest,
)

LIMITS = RunLimits(cpu_time=2.5, wall_time=9.5, run_time=None, memory_mb=256, output_bytes=1 << 20, processes=64,
                   file_size_bytes=1 << 20, open_files=256, returned_output_bytes=1 << 16)
OWN_FIELDS = {  # a value for each kind's own field
    "argv": ("/proc/self/fd/5", "--flag", "caf\udce9"),  # a lone surrogate, as surrogateescape makes them
    "env": {"PATH": "/usr/bin", "LANG": "C.UTF-8"},
    "tests_argv": ("/bin/sh", "-c", "exec ./tests"),
    "interactor_argv": ("/proc/self/fd/5", "/proc/self/fd/9"),
    "fn_name": "solve",
}


def request_of(kind: RunKind, **changes: object) -> RunRequest:
    values = {"kind": kind, "limits": LIMITS, "fd_names": (*EVERY_RUN_FDS, FdName.TOKEN),
              **{name: OWN_FIELDS[name] for name in KIND_FIELDS[kind]}, **changes}
    return RunRequest(**values)  # type: ignore[arg-type]


def through_json(message: dict) -> dict:
    """What the other end reads: the message as protocol.send encodes it."""
    return json.loads(json.dumps(message, separators=(",", ":")))


# -- round trips -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(RunKind))
def test_every_kind_round_trips(kind):
    request = request_of(kind)
    assert RunRequest.from_wire(through_json(request.to_wire())) == request


@pytest.mark.parametrize("kind", list(RunKind))
def test_every_kind_round_trips_with_every_optional_field(kind):
    request = request_of(kind, fetch=("out.txt", "/mnt/b/c"), output_file="output.txt", tops=("mnt",),
                         limits=RunLimits(**{**LIMITS.to_wire(), "run_time": 3.0}),
                         fd_names=(*EVERY_RUN_FDS, *(name for name in FdName if name not in EVERY_RUN_FDS)))
    assert RunRequest.from_wire(through_json(request.to_wire())) == request


def test_the_message_names_its_kind_and_has_only_that_kinds_fields():
    message = request_of(RunKind.SPLIT).to_wire()
    assert message["kind"] == "split"
    assert set(message) == {"kind", "limits", "fd_names", "argv", "env", "tests_argv"}  # defaults are left out
    assert message["fd_names"] == ["stdin", "stdout", "stderr", "result", "token"]
    assert type(message["kind"]) is str and all(type(name) is str for name in message["fd_names"])
    call = request_of(RunKind.PYTHON_CALL).to_wire()
    assert (call["kind"], call["fn_name"]) == ("python-call", "solve") and "argv" not in call


def test_limits_round_trip_and_are_sent_whole():
    message = LIMITS.to_wire()
    assert set(message) == {f.name for f in fields(RunLimits)} and message["run_time"] is None
    assert RunLimits.from_wire(through_json(message)) == LIMITS
    assert RunLimits.from_wire({**message, "cpu_time": 2}).cpu_time == 2  # a whole number is a number


def test_every_kind_has_its_fields_declared():
    assert set(KIND_FIELDS) == set(RunKind)
    own = {f.name for f in fields(RunRequest)} - {"kind", "limits", "fd_names", "fetch", "output_file", "tops"}
    assert set().union(*KIND_FIELDS.values()) == own
    assert protocol.PYTHON_KINDS == {kind for kind in RunKind if kind.value.startswith("python-")}


def test_the_descriptors_are_named_in_the_order_they_travel():
    request = request_of(RunKind.COMMAND, fd_names=(FdName.PROGRAM, *EVERY_RUN_FDS))
    assert request.named([10, 11, 12, 13, 14]) == {FdName.PROGRAM: 10, FdName.STDIN: 11, FdName.STDOUT: 12,
                                                   FdName.STDERR: 13, FdName.RESULT: 14}
    with pytest.raises(ValueError, match="names 5 descriptors but came with 4"):
        request.named([10, 11, 12, 13])  # e.g. the kernel cut off descriptors past MAX_FDS


def test_exec_args_are_a_command_line_and_the_environment():
    request = request_of(RunKind.SPLIT)
    assert request.exec_args(request.tests_argv) == ("/bin/sh", OWN_FIELDS["tests_argv"], OWN_FIELDS["env"])
    with pytest.raises(ValueError, match="a split run request has no such command line"):
        request.exec_args(request.interactor_argv)
    python = request_of(RunKind.PYTHON_STDIO)
    with pytest.raises(ValueError, match="no such command line"):
        python.exec_args(python.argv)


# -- refusals ------------------------------------------------------------------------------------------------

WIRE = request_of(RunKind.COMMAND).to_wire()


def test_a_request_with_an_unknown_field_is_refused():
    with pytest.raises(ValueError, match=r"a run request with unknown fields \['python'\]"):
        RunRequest.from_wire({**WIRE, "python": {"kind": "stdio"}})  # the old wire's Python field
    with pytest.raises(ValueError, match=r"run limits with unknown fields \['cpu'\]"):
        RunRequest.from_wire({**WIRE, "limits": {**WIRE["limits"], "cpu": 1.0}})


@pytest.mark.parametrize("name", ["kind", "limits", "fd_names"])
def test_a_request_without_a_required_field_is_refused(name):
    with pytest.raises(ValueError, match=rf"a run request without the fields \['{name}'\]"):
        RunRequest.from_wire({key: value for key, value in WIRE.items() if key != name})


@pytest.mark.parametrize("name", [f.name for f in fields(RunLimits)])
def test_limits_without_any_one_field_are_refused(name):
    limits = {key: value for key, value in WIRE["limits"].items() if key != name}
    with pytest.raises(ValueError, match=rf"run limits without the fields \['{name}'\]"):
        RunRequest.from_wire({**WIRE, "limits": limits})


@pytest.mark.parametrize(("name", "value"), [
    ("kind", 1), ("kind", "stdio"), ("kind", None), ("limits", None), ("limits", [2.5]), ("fd_names", "stdin"),
    ("fd_names", [0, 1, 2]), ("fd_names", ["stdin", "stdout", "stderr", "result", "report"]), ("argv", "/bin/true"),
    ("argv", ["/bin/true", 1]), ("argv", {"0": "/bin/true"}), ("env", [["PATH", "/bin"]]), ("env", {"PATH": 1}),
    ("fetch", "out.txt"), ("fetch", [None]), ("output_file", 1), ("output_file", ["output.txt"]), ("tops", "mnt"),
])
def test_a_request_field_of_the_wrong_type_is_refused(name, value):
    with pytest.raises(ValueError, match=rf"a run request: {name}: "):
        RunRequest.from_wire({**WIRE, name: value})


@pytest.mark.parametrize(("name", "value"), [
    ("cpu_time", True), ("cpu_time", "2.5"), ("cpu_time", None), ("wall_time", [9.5]), ("run_time", "3"),
    ("run_time", False), ("memory_mb", 256.0), ("memory_mb", True), ("processes", "64"), ("open_files", None),
    ("output_bytes", 1.5), ("file_size_bytes", {}), ("returned_output_bytes", None),
])
def test_a_limit_of_the_wrong_type_is_refused(name, value):
    with pytest.raises(ValueError, match=rf"a run request: limits: run limits: {name}: "):
        RunRequest.from_wire({**WIRE, "limits": {**WIRE["limits"], name: value}})


@pytest.mark.parametrize("message", [None, [], "command", 1, [["kind", "command"]]])
def test_a_request_that_is_not_an_object_is_refused(message):
    with pytest.raises(ValueError, match="a run request is a"):
        RunRequest.from_wire(message)


def test_a_kind_is_never_inferred_from_the_fields_present():
    # A split run's field on a plain command, a command's on a Python run, a call's function on a stdio run:
    # each is refused, whatever the kind would have been guessed to be from its fields.
    for kind, extra in ((RunKind.COMMAND, {"tests_argv": ["/bin/sh"]}), (RunKind.PYTHON_STDIO, {"argv": ["/x"]}),
                        (RunKind.PYTHON_STDIO, {"fn_name": "f"}), (RunKind.SPLIT, {"interactor_argv": ["/x"]})):
        with pytest.raises(ValueError, match=f"a {kind.value} run request has the fields"):
            RunRequest.from_wire({**through_json(request_of(kind).to_wire()), **extra})
    for kind in (RunKind.SPLIT, RunKind.INTERACTIVE, RunKind.PYTHON_CALL):  # and each kind's fields are required
        for name in KIND_FIELDS[kind]:
            message = {key: value for key, value in request_of(kind).to_wire().items() if key != name}
            with pytest.raises(ValueError, match=f"a {kind.value} run request has the fields"):
                RunRequest.from_wire(message)


def test_the_judge_cannot_build_a_request_the_zygote_would_refuse():
    with pytest.raises(ValueError, match="has the fields"):
        RunRequest(RunKind.PYTHON_CALL, LIMITS, EVERY_RUN_FDS)  # a call without its function
    with pytest.raises(ValueError, match="names a descriptor twice"):
        request_of(RunKind.COMMAND, fd_names=(*EVERY_RUN_FDS, FdName.STDIN))
    with pytest.raises(ValueError, match=r"without the descriptors \['result'\]"):
        request_of(RunKind.COMMAND, fd_names=(FdName.STDIN, FdName.STDOUT, FdName.STDERR))


# -- the names -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("names", [Op, RunKind, FdName, Note])
def test_each_vocabulary_is_closed_and_its_names_are_plain_strings_on_the_wire(names):
    values = [member.value for member in names]
    assert len(set(values)) == len(values)
    for member in names:
        assert names(member.value) is member
        assert member == member.value and str(member) == member.value and f"{member}" == member.value
        assert json.dumps(member) == json.dumps(member.value)
    with pytest.raises(ValueError):
        names("no-such-name")


def test_the_ops_are_every_control_message_and_nothing_else():
    assert {op.value for op in Op} == {"ready", "failed", "started", "note", "mount", "unmount"}
    assert protocol.STARTED == {"op": "started"} and type(protocol.STARTED["op"]) is str
    note = through_json(RunNote(Note.COMPILE_ERROR, "x").to_wire())
    assert note["op"] == Op.NOTE and RunNote.from_wire(note) == RunNote(Note.COMPILE_ERROR, "x")


def test_every_run_gets_its_stdio_and_report():
    assert {name.value for name in EVERY_RUN_FDS} == {"stdin", "stdout", "stderr", "result"}


# -- the judge's side --------------------------------------------------------------------------------------


def test_the_slots_limits_are_the_callers_with_the_backstop_resolved():
    from judgebox.sandbox import slot
    from judgebox.types import Limits

    limits = Limits(cpu_time=2, run_time=4.5, memory_mb=300)
    sent = RunLimits.from_wire(through_json(slot._run_limits(limits).to_wire()))
    assert (sent.cpu_time, sent.wall_time, sent.run_time, sent.memory_mb) == (2, limits.wall_backstop, 4.5, 300)
    assert RunLimits.from_wire(through_json(slot._run_limits(Limits()).to_wire())).run_time is None


def test_every_python_harness_has_its_kind():
    from judgebox.sandbox import slot
    from judgebox.types import CaseKind

    # every case kind, and /run_jupyter's driver, which runs no case of its own
    assert set(slot.HARNESS_KINDS) == set(typing.get_args(CaseKind)) | {"jupyter"}
    assert set(slot.HARNESS_KINDS.values()) == protocol.PYTHON_KINDS


def test_the_protocol_imports_with_the_standard_library_alone():
    """The zygote loads its own copy of sandbox/inside/ under another name, with nothing else on its path."""
    script = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('_copy_protocol', sys.argv[1])\n"
        "module = sys.modules['_copy_protocol'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "outside = sorted(name for name in sys.modules if name.split('.')[0] not in sys.stdlib_module_names\n"
        "                 and name not in ('_copy_protocol', '__main__'))\n"
        "print(outside)\n")
    path = Path(protocol.__file__)
    done = subprocess.run([sys.executable, "-I", "-S", "-c", script, str(path)], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(("name", "value"), [("wall_time", float("inf")), ("cpu_time", float("nan")),
                                             ("memory_mb", -1), ("run_time", float("inf")), ("processes", 0)])
def test_a_limit_no_limits_record_can_hold_is_refused(name, value):
    """Defence in depth: only the judge writes requests, from Limits it checked, but a wall_time of Infinity
    read here would be a run with no backstop (the readers checked types only)."""
    wire = {**RunLimits(cpu_time=1.0, wall_time=5.0, run_time=None, memory_mb=256, output_bytes=1 << 20,
                        processes=8, file_size_bytes=1 << 20, open_files=64, returned_output_bytes=0).to_wire(),
            name: value}
    with pytest.raises(ValueError, match=name):
        RunLimits.from_wire(wire)
