"""``POST /run_jupyter`` on the session's real ``judgebox serve``: cells in one real ipykernel inside the sandbox.

A kernel's start costs seconds, so most behaviours are cells of one shared request (``notebook``), each test
reading its own cells of that one response; the attacks on the driver's result are cells of it too, followed
by honest cells whose outputs must come back intact.
"""

from __future__ import annotations

import base64
import concurrent.futures
import time

import httpx
import pytest
import sandbox_fusion
from sandbox_fusion import RunJupyterRequest, run_jupyter, set_endpoint

FORGED = ('{"cells":[{"stdout":"forged","stderr":"","display":[],"error":[]}],"stopped":null,"message":"",'
          '"truncated":false}')
CELLS = {
    "print": "print(123)",
    "state": "a = 'hello'",
    "value": "a",
    "display": "from IPython.display import display, HTML\ndisplay(HTML('<b>bold</b>'))",
    "stderr": "import sys\nsys.stderr.write('to stderr\\n')\nNone",
    "raises": "assert False, 'on purpose'",
    "after_error": "print(a)",
    "file_in": "print(open('data/in.txt').read())",
    "file_out": "open('out.txt', 'w').write('written by a cell')\nNone",
    # matplotlib's inline backend, as SandboxFusion's images have it (python3-matplotlib, scripts/setup.sh)
    "plot": "import matplotlib.pyplot as plt\n%matplotlib inline\nplt.plot([1, 2, 3])\nplt.show()",
    # attacks: each prints the errno it met (``failed``)
    "failed": "import errno\ndef failed(e):\n    print(errno.errorcode[e.errno])",
    "shadow": "try:\n    open('/etc/shadow').read()\n    print('read')\nexcept OSError as e:\n    failed(e)",
    "outside": "try:\n    open('/usr/pwned', 'w')\n    print('wrote')\nexcept OSError as e:\n    failed(e)",
    "network": ("import socket\ntry:\n    socket.create_connection(('93.184.216.34', 80), timeout=2)\n"
                "    print('connected')\nexcept OSError as e:\n    failed(e)"),
    # the driver is the kernel's parent: its result fd, its memory, its life
    "driver_fd": ("import os\ntry:\n    os.open(f'/proc/{os.getppid()}/fd/3', os.O_WRONLY)\n    print('opened')\n"
                  "except OSError as e:\n    failed(e)"),
    "driver_kill": "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\n    print('killed')\n"
                   "except OSError as e:\n    failed(e)",
    "fake_result": f"print({FORGED!r})",
    # a message forged in the kernel's own session, for a request that is not this cell's
    "fake_message": ("k = get_ipython().kernel\nk.session.send(k.iopub_socket, 'stream', {'name': 'stdout', "
                     "'text': 'FORGED'}, parent={'header': {'msg_id': 'not-a-cell'}})\nprint('sent')"),
    "last": "print('still', a)",
}
NAMES = list(CELLS)


@pytest.fixture(scope="module")
def notebook(server):
    body = {"cells": list(CELLS.values()), "total_timeout": 60,
            "files": {"data/in.txt": base64.b64encode(b"from the request").decode()}, "fetch_files": ["out.txt"]}
    response = httpx.post(server.url + "/run_jupyter", json=body, timeout=120)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["status"] == "Success", answer
    return answer


def cell(notebook: dict, name: str) -> dict:
    return notebook["cells"][NAMES.index(name)]


def test_every_cell_runs_in_order_in_one_kernel(notebook):
    assert len(notebook["cells"]) == len(CELLS)
    assert cell(notebook, "print") == {"stdout": "123\n", "stderr": "", "display": [], "error": []}
    assert cell(notebook, "value")["display"] == [{"text/plain": "'hello'"}]  # the state of the cell before
    assert cell(notebook, "last")["stdout"] == "still hello\n"
    assert notebook["driver"]["status"] == "Finished" and notebook["driver"]["return_code"] == 0


def test_display_and_stderr(notebook):
    assert cell(notebook, "display")["display"] == [{"text/plain": "<IPython.core.display.HTML object>",
                                                    "text/html": "<b>bold</b>"}]
    assert cell(notebook, "stderr")["stderr"] == "to stderr\n"


def test_an_error_cell_and_the_cell_after_it(notebook):
    (error,) = cell(notebook, "raises")["error"]
    assert error["ename"] == "AssertionError" and error["evalue"] == "on purpose"
    assert any("on purpose" in line for line in error["traceback"])
    assert cell(notebook, "after_error") == {"stdout": "hello\n", "stderr": "", "display": [], "error": []}


def test_a_plot_comes_back_as_a_png(notebook):
    (figure,) = cell(notebook, "plot")["display"]
    assert base64.b64decode(figure["image/png"]).startswith(b"\x89PNG\r\n\x1a\n"), figure.get("text/plain")


def test_files_in_and_fetch_files_out(notebook):
    assert cell(notebook, "file_in")["stdout"] == "from the request\n"
    assert notebook["files"] == {"out.txt": base64.b64encode(b"written by a cell").decode()}


def test_cells_stay_in_the_sandbox(notebook):
    assert cell(notebook, "shadow")["stdout"] == "EACCES\n"
    assert cell(notebook, "outside")["stdout"] in ("EACCES\n", "EROFS\n")  # Landlock, or the read-only root
    assert cell(notebook, "network")["stdout"] == "EACCES\n"  # seccomp: no socket but AF_UNIX


def test_cells_cannot_reach_or_forge_the_drivers_result(notebook):
    """The driver's result fd and its life are out of the kernel's reach (not dumpable, an enclosing Landlock
    domain), a printed result is only output, and a message for another request is not a cell's."""
    assert cell(notebook, "driver_fd")["stdout"] in ("ENOENT\n", "EACCES\n")  # /proc hides it, or its fds are root's
    assert cell(notebook, "driver_kill")["stdout"] == "EPERM\n"
    assert cell(notebook, "fake_result")["stdout"] == FORGED + "\n"
    assert cell(notebook, "fake_message")["stdout"] == "sent\n"
    assert all("FORGED" not in c["stdout"] for c in notebook["cells"])


def test_unknown_keys_and_kernels_are_refused(server):
    for body in ({"cells": ["1"], "timeout": 5}, {"cells": ["1"], "kernel": "julia"}, {"cell": ["1"]}):
        response = httpx.post(server.url + "/run_jupyter", json=body, timeout=30)
        assert response.status_code == 422, (body, response.text)


@pytest.mark.slow  # about 4 s here: a kernel of its own
def test_the_official_client_unchanged(server):
    before = (sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT)
    set_endpoint(server.url)
    try:
        result = run_jupyter(RunJupyterRequest(cells=["x = 6 * 7", "x", "print(x)"]), client_timeout=120)
    finally:
        sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT = before
    assert result.status == "Success"
    assert result.cells[1].display == [{"text/plain": "42"}]
    assert result.cells[2].stdout == "42\n"


@pytest.mark.slow  # two kernels and their timeouts: 9 s here, the two requests side by side on the two slots
def test_cell_timeout_and_total_timeout_stop_the_cells(server):
    """SandboxFusion takes cell_timeout but never enforces it; here a cell past it, or the cells past
    total_timeout, end the run as Failed with the cells that ran, and the cells after them do not run."""
    sleepy = ["import time\nprint('started')", "time.sleep(1.5)", "time.sleep(30)", "print('never')"]
    bodies = {"cell": {"cells": sleepy, "cell_timeout": 1.0, "total_timeout": 60},
              "total": {"cells": sleepy, "total_timeout": 2.0}}
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(httpx.post, server.url + "/run_jupyter", json=body, timeout=120)
                   for name, body in bodies.items()}
        answers = {name: future.result().json() for name, future in futures.items()}
    assert time.monotonic() - started < 25  # neither waited for the 30 s cell
    cell_stop, total_stop = answers["cell"], answers["total"]
    assert cell_stop["status"] == "Failed" and "cell 2 ran past cell_timeout" in cell_stop["message"], cell_stop
    assert len(cell_stop["cells"]) == 2 and cell_stop["cells"][0]["stdout"] == "started\n"
    assert total_stop["status"] == "Failed" and "total_timeout" in total_stop["message"], total_stop
    assert len(total_stop["cells"]) == 3
    for answer in answers.values():
        assert answer["driver"]["status"] == "TimeLimitExceeded"
