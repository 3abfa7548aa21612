"""The driver of a /run_jupyter run: one Jupyter kernel, the cells in order, one result for the judge.

It runs as the judge code of a ``python-jupyter`` run, in the confined fork of the slot's warm interpreter
(pyrun dispatches to it), and starts the kernel (ipykernel, as ``KERNEL_BOOT`` launches it) as a child of its own
inside the same sandbox. The kernel talks to it over ZeroMQ's ``ipc`` transport, Unix sockets in a private
folder under ``/dev/shm``: the sandbox allows no socket family but AF_UNIX and Landlock denies TCP, so the
kernel needs no network at all, loopback included.

What the cells could do to forge the result, as an attacker would try it, and why each fails:

- overwrite the result file: there is none. The result travels on ``Fd.REPORT``, a memfd that only this
  process holds; it is close-on-exec and the kernel is started with every other descriptor closed;
- reach that memfd through ``/proc/<driver>/fd/3`` or the driver's memory (``/proc/<driver>/mem``,
  ptrace, process_vm_readv, pidfd_getfd): the driver is not dumpable (so the run's /proc, mounted
  ``hidepid=invisible``, does not even list it, and its files there are root's), the
  kernel runs in a Landlock domain nested in the driver's (ptrace-mode access to an enclosing domain is
  denied), and seccomp denies those calls;
- kill or stop the driver, so that no result comes (an SE the cells chose): the nested domain cannot
  signal the enclosing one (Landlock ABI >= 6);
- send the driver forged Jupyter messages (the kernel holds the session key, so signatures prove nothing
  here): a message counts only for the cell whose request it answers (its ``parent_header.msg_id``, a
  random id the kernel sees only once that cell is sent), and then only as that cell's output, which its
  code could have printed anyway; the cells' order, their count, the timeouts and whether the kernel died
  are this process's own observations, never a message's say-so;
- flood the driver with output: what it keeps is bounded by ``budget`` (encoded JSON bytes), past which
  it keeps counting but stops keeping, and says so (``truncated``);
- write a fake result line to stdout: stdout is only the ``driver`` record's output.

The payload is one JSON line; pyrun's pass then appends the run's token, which only this process has.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from . import kernel, landlock

KERNEL_START_TIMEOUT = 30.0  # seconds for the kernel to answer its first request; not the cells' time
CELL_CHARGE = 64  # the JSON a cell's record costs beyond its texts, counted against the budget
# The kernel's process, as ipykernel_launcher starts it, less the two parts that listen on TCP (which the
# sandbox denies, and zmq aborts on): the debugger, and the pipe that relays forked children's output.
KERNEL_BOOT = """\
import sys
if sys.path[0] == "":
    del sys.path[0]  # as ipykernel_launcher: the work folder's files do not shadow the kernel's modules
sys.modules["debugpy"] = None
from ipykernel import iostream, kernelapp
iostream.IOPubThread._setup_pipe_in = lambda thread: setattr(thread, "_pipe_flag", False)
kernelapp.launch_new_instance()
"""
MISSING_PACKAGES = ("the Jupyter kernel's packages are not installed for {python}: {error} (on Debian: "
                    "apt-get install python3-ipykernel python3-jupyter-client)")


class SetupFailed(Exception):
    """The kernel could not be had: nothing the cells did (no cell has run), so the run is SE."""


def run_cells(request_json: bytes, nested_domain: bool) -> bytes:
    """The result payload of the request's cells: ``{"cells", "stopped", "message", "truncated"}``.
    ``stopped`` is null when every cell ran, else "cell_timeout", "total_timeout" or "kernel_died"."""
    request = json.loads(request_json)
    cells: list[str] = request["cells"]
    try:
        from jupyter_client.blocking import BlockingKernelClient
        from jupyter_client.connect import write_connection_file
        if importlib.util.find_spec("ipykernel_launcher") is None:
            raise ImportError("No module named 'ipykernel_launcher'")
    except ImportError as exc:
        raise SetupFailed(MISSING_PACKAGES.format(python=sys.executable, error=exc)) from None
    record = Record(request["budget"])
    if not cells:
        return record.payload(None, "")
    private = tempfile.mkdtemp(prefix="jupyter-", dir="/dev/shm")
    connection, info = write_connection_file(os.path.join(private, "kernel.json"), transport="ipc",
                                             ip=os.path.join(private, "kernel"), key=secrets.token_hex(16).encode())
    kernel.prctl(kernel.PR_SET_DUMPABLE, 0)  # before the kernel exists: it must never read this process
    process = _start_kernel(connection, private, nested_domain)
    client = BlockingKernelClient()
    client.load_connection_info(info)
    client.start_channels(hb=False)  # the kernel's liveness is its process's, which this one watches
    try:
        _wait_for_kernel(client, process)
        stopped, message = _execute_all(client, process, cells, request["cell_timeout"], request["total_timeout"],
                                        record)
        return record.payload(stopped, message)
    finally:
        process.kill()  # no graceful shutdown: the run ends here, and the sandbox kills what is left
        client.stop_channels()


def _wait_for_kernel(client: Any, process: subprocess.Popen[bytes]) -> None:
    """Until the kernel's iopub reaches this process: a subscriber that connects late misses what was
    published before it did (the shell may answer first), which would lose the first cell's output. Each
    request's busy and idle status is published, so the first message on iopub proves the subscription."""
    deadline = time.monotonic() + KERNEL_START_TIMEOUT
    while time.monotonic() < deadline:
        client.kernel_info()
        try:
            client.get_iopub_msg(timeout=0.5)
            return
        except queue.Empty:
            pass
        if process.poll() is not None:
            raise SetupFailed(f"the Jupyter kernel exited as it started ({_exit_text(process.returncode)}); "
                              "its output is the driver's stderr")
    raise SetupFailed(f"the Jupyter kernel did not answer within {KERNEL_START_TIMEOUT:g} s of its start")


def _start_kernel(connection: str, private: str, nested_domain: bool) -> subprocess.Popen[bytes]:
    env = {**os.environ, "IPYTHONDIR": os.path.join(private, "ipython"), "JUPYTER_RUNTIME_DIR": private,
           "JUPYTER_DATA_DIR": private, "JUPYTER_CONFIG_DIR": private, "MPLCONFIGDIR": os.path.join(private, "mpl"),
           "JUPYTER_PLATFORM_DIRS": "1",
           # as jupyter_client launches kernels: the kernel ends if this process does, and prints no banner
           "JPY_PARENT_PID": str(os.getpid())}

    def confine_kernel() -> None:  # in the kernel's process, before it execs: out of reach of this one
        if nested_domain:
            landlock.enter_nested_domain()

    # stdout and stderr are the run's, the ``driver`` record's output; every other descriptor is closed
    return subprocess.Popen([sys.executable, "-c", KERNEL_BOOT, "-f", connection,
                             "--HistoryManager.enabled=False"], stdin=subprocess.DEVNULL, env=env,
                            close_fds=True, preexec_fn=confine_kernel)


def _execute_all(client: Any, process: subprocess.Popen[bytes], cells: list[str], cell_timeout: float,
                 total_timeout: float, record: Record) -> tuple[str | None, str]:
    total_deadline = time.monotonic() + total_timeout
    for number, code in enumerate(cells, 1):
        cell = record.new_cell()
        msg_id = client.execute(code, store_history=True, allow_stdin=False, stop_on_error=False)
        now = time.monotonic()
        cell_deadline = now + cell_timeout if cell_timeout > 0 else float("inf")
        while True:
            deadline = min(cell_deadline, total_deadline)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if deadline == cell_deadline:
                    return "cell_timeout", (f"cell {number} ran past cell_timeout ({cell_timeout:g} s); the cells "
                                            "after it did not run")
                return "total_timeout", (f"the cells ran past total_timeout ({total_timeout:g} s) in cell {number}; "
                                         "the cells after it did not run")
            try:
                message = client.get_iopub_msg(timeout=min(remaining, 0.25))
            except queue.Empty:
                if process.poll() is not None:
                    return "kernel_died", (f"the kernel died in cell {number} ({_exit_text(process.returncode)}); "
                                           "the cells after it did not run")
                continue
            if _parent_id(message) != msg_id:
                continue  # another request's (the kernel_info of start-up), or forged for another cell
            if _collect(message, cell, record):
                break
    return None, ""


def _parent_id(message: object) -> object:
    parent = message.get("parent_header") if isinstance(message, dict) else None
    return parent.get("msg_id") if isinstance(parent, dict) else None


def _collect(message: dict, cell: dict, record: Record) -> bool:
    """Keep one of the cell's messages; True when it says the cell is done (the kernel went idle)."""
    kind = message.get("header", {}).get("msg_type") if isinstance(message.get("header"), dict) else None
    content = message.get("content")
    if not isinstance(content, dict):
        return False
    if kind == "status":
        return content.get("execution_state") == "idle"
    if kind == "stream" and content.get("name") in ("stdout", "stderr") and isinstance(content.get("text"), str):
        name = content["name"]
        cell[name] += record.keep_text(content["text"])
    elif kind in ("display_data", "execute_result") and isinstance(content.get("data"), dict):
        record.keep_entry(cell["display"], content["data"])
    elif kind == "error":
        traceback = content.get("traceback")
        record.keep_entry(cell["error"], {
            "ename": str(content.get("ename", "")), "evalue": str(content.get("evalue", "")),
            "traceback": [str(line) for line in traceback] if isinstance(traceback, list) else []})
    return False


def _exit_text(returncode: int) -> str:
    return f"killed by signal {-returncode}" if returncode < 0 else f"exit code {returncode}"


class Record:
    """The cells' outputs as they come, within ``budget`` bytes of encoded JSON; past it, what comes is
    dropped and the result says it was."""

    def __init__(self, budget: int) -> None:
        self.left = budget
        self.cells: list[dict] = []
        self.truncated = False

    def new_cell(self) -> dict:
        cell: dict = {"stdout": "", "stderr": "", "display": [], "error": []}
        self.cells.append(cell)
        self.left -= CELL_CHARGE
        return cell

    def keep_text(self, text: str) -> str:
        cost = len(_encoded(text))
        if cost <= self.left:
            self.left -= cost
            return text
        self.truncated = True
        kept = text[: max(0, self.left // 6)]  # an escaped character is at most 6 bytes (\\uXXXX)
        self.left -= len(_encoded(kept))
        return kept

    def keep_entry(self, entries: list, entry: dict) -> None:
        try:
            cost = len(_encoded(entry)) + 2
        except (TypeError, ValueError):  # not JSON (it came as JSON, so only a forged message gets here)
            return
        if cost <= self.left:
            self.left -= cost
            entries.append(entry)
        else:
            self.truncated = True

    def payload(self, stopped: str | None, message: str) -> bytes:
        return _encoded({"cells": self.cells, "stopped": stopped, "message": message,
                         "truncated": self.truncated}).encode()


_encoded: Callable[[object], str] = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
