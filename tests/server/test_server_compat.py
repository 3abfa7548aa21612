"""SandboxFusion compatibility of ``judgebox serve``, checked the way its two real consumers use it:

- the official ``sandbox-fusion`` client (PyPI 0.3.7), unchanged: ``set_endpoint`` + ``run_code`` (sync and
  async) must parse our responses and get the right statuses;
- verl's reward path, which posts raw JSON to ``<url>/run_code`` and maps each response to True / False /
  -1 (sandbox error) / -2 (runtime error) / -3 (timeout) / -4 (compile error)
  (verl's sandbox_fusion scorer, which reads them);

plus the output capture SandboxFusion gets wrong (#62: big outputs truncated under ``Success`` or hung into a
false TLE) and the ``files`` / ``fetch_files`` round trip. All against the session's real server.
"""

from __future__ import annotations

import asyncio
import base64
import time

import httpx
import pytest
import sandbox_fusion
from sandbox_fusion import (
    CommandRunStatus,
    RunCodeRequest,
    RunStatus,
    SummaryMapping,
    run_code,
    run_code_async,
    set_endpoint,
    summary_run_code_result,
)

# --- the official client, unchanged ----------------------------------------------------------------------------


@pytest.fixture
def client_endpoint(server):
    """Point the client's module-level endpoint at the server (what a user does), and put it back after."""
    before = (sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT)
    set_endpoint(server.url)
    yield server.url
    sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT = before


def _client_run(code: str, **fields) -> sandbox_fusion.RunCodeResponse:
    # max_attempts=1: the client retries every failure for ~30 s, which would hide a bug behind a slow test
    return run_code(RunCodeRequest(code=code, language="python", **fields), max_attempts=1, client_timeout=60)


def test_client_hello_world(client_endpoint):
    result = _client_run("print('Hello, world!')")
    assert result.status == RunStatus.Success and result.message == ""
    assert result.compile_result is None  # interpreted: no compile step, as in SandboxFusion
    assert result.run_result.status == CommandRunStatus.Finished
    assert (result.run_result.return_code, result.run_result.stdout, result.run_result.stderr) == (
        0, "Hello, world!\n", "")
    assert result.run_result.execution_time is not None and result.run_result.cpu_time is not None


def test_client_stdin_echo(client_endpoint):
    result = _client_run("import sys\nsys.stdout.write(sys.stdin.read())", stdin="line one\nline two\n")
    assert result.status == RunStatus.Success
    assert result.run_result.stdout == "line one\nline two\n"


def test_client_runtime_error(client_endpoint):
    result = _client_run("print('before')\nraise ValueError('boom')")
    assert result.status == RunStatus.Failed
    assert result.run_result.status == CommandRunStatus.Finished and result.run_result.return_code == 1
    assert result.run_result.stdout == "before\n" and "ValueError: boom" in result.run_result.stderr
    assert summary_run_code_result(result, SummaryMapping(RunFailed="RE")) == "RE"


def test_client_syntax_error_is_a_failed_run(client_endpoint):
    """Python has no compile step: a syntax error is ``Failed`` with a ``run_result`` (rc != 0), like SandboxFusion;
    not SandboxError, which the client would raise and retry."""
    result = _client_run("def broken(:\n    pass\n")
    assert result.status == RunStatus.Failed and result.compile_result is None
    assert result.run_result.status == CommandRunStatus.Finished and result.run_result.return_code != 0
    assert "SyntaxError" in result.run_result.stderr


def test_client_timeout(client_endpoint):
    started = time.monotonic()
    result = _client_run("while True:\n    pass\n", run_timeout=1)
    assert time.monotonic() - started < 10
    assert result.status == RunStatus.Failed
    assert result.run_result.status == CommandRunStatus.TimeLimitExceeded and result.run_result.return_code is None
    assert summary_run_code_result(result, SummaryMapping(RunTimeout="TLE")) == "TLE"


def test_client_async(client_endpoint):
    async def both():
        return await asyncio.gather(
            run_code_async(RunCodeRequest(code="print(input() * 2)", stdin="ab", language="python"), max_attempts=1),
            run_code_async(RunCodeRequest(code="import sys; sys.exit(3)", language="python"), max_attempts=1))

    ok, failed = asyncio.run(both())
    assert (ok.status, ok.run_result.stdout) == (RunStatus.Success, "abab\n")
    assert (failed.status, failed.run_result.return_code) == (RunStatus.Failed, 3)


def test_unsupported_language_is_200_sandbox_error(server):
    """SandboxFusion's ``lean`` is not run here: 200 + SandboxError (verl scores it -1; the client would raise),
    not 422. Raw httpx, because the client refuses to return a SandboxError."""
    response = httpx.post(server.url + "/run_code", json={"code": "theorem t : True := trivial", "language": "lean"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "SandboxError" and "lean" in body["message"]
    assert body["run_result"] is None and body["compile_result"] is None


def test_unknown_language_is_422_as_sandboxfusions_schema_answers(server):
    """A name that is neither judgebox's nor SandboxFusion's is a bad request (SandboxFusion's Literal makes it
    422): a 200 SandboxError would make the official client retry it for seconds before it raises."""
    response = httpx.post(server.url + "/run_code", json={"code": "print(1)", "language": "cobol"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "language"]
    assert "unknown language 'cobol'" in response.json()["detail"][0]["msg"]
    # an alias judgebox knows is no bad request
    assert httpx.post(server.url + "/run_code", json={"code": "print(1)", "language": "python3"}).status_code == 200


# --- verl's request shape and its mapping to rewards -------------------------------------------------------------


def verl_case_result(url: str, code: str, stdin: str | None, expected: str | None, timeout: float = 10,
                     memory_limit_mb: int = 1024, language: str = "python"):
    """verl 0.9.1's ``call_sandbox_api`` + ``_process_single_case``, cut down to what decides the result."""
    payload = {"compile_timeout": timeout, "run_timeout": timeout, "code": code, "stdin": stdin,
               "memory_limit_MB": memory_limit_mb, "language": language, "files": {}, "fetch_files": []}
    response = httpx.post(url + "/run_code", json=payload, timeout=timeout * 2 + 10,
                          headers={"Content-Type": "application/json", "Accept": "application/json"})
    if response.status_code != 200:  # verl retries 504 only; anything else non-2xx is an API error
        return -1
    body = response.json()
    compile_result, run_result = body.get("compile_result"), body.get("run_result")
    if body.get("status") == "SandboxError":
        return -1
    if body.get("status") == "Failed":
        if compile_result and (compile_result.get("status") in ("Error", "TimeLimitExceeded")
                               or compile_result.get("return_code") != 0):
            return -4
        if run_result is None:
            return -1
        if run_result.get("status") == "TimeLimitExceeded":
            return -3
        if run_result.get("status") == "Error" or run_result.get("return_code") != 0:
            return -2
        return -1
    if body.get("status") == "Success" and run_result and run_result.get("status") == "Finished":
        if expected is None:
            return True
        return str(run_result.get("stdout") or "").rstrip("\n") == str(expected).rstrip("\n")
    return -1


SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
VERL_PROGRAMS = {
    "accepted": (SUM, "2 3\n", "5", 10, True),
    "accepted, trailing blank lines": ("print(5)\nprint()\nprint()", None, "5\n", 10, True),
    "wrong answer": ("a, b = map(int, input().split())\nprint(a - b)\n", "2 3\n", "5", 10, False),
    "runtime error": ("print(1 // 0)", "", "0", 10, -2),
    "killed by a signal": ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", None, "", 10, -2),
    "timeout": ("while True:\n    pass\n", "", "0", 1, -3),
    "syntax error": ("print('unclosed'\n", "", "unclosed", 10, -2),
    # SandboxFusion's RLIMIT_AS at verl's default 1024 MB kills numpy's BLAS threads (-2); a cgroup limit does not
    "numpy at 1024 MB": ("import numpy as np\nm = np.arange(40000, dtype=float).reshape(200, 200)\n"
                         "print(int(np.trace(m @ np.eye(200))))", None, "3999900", 10, True),
}


@pytest.mark.parametrize("name", list(VERL_PROGRAMS))
def test_verl_request_and_mapping(server, name):
    code, stdin, expected, timeout, wanted = VERL_PROGRAMS[name]
    assert verl_case_result(server.url, code, stdin, expected, timeout) == wanted


def test_verl_unsupported_language_scores_minus_one(server):
    assert verl_case_result(server.url, "print(1)", None, "1", language="verilog") == -1


# --- output capture ----------------------------------------------------------------------------------------------


def _post_run(server, code: str, **fields) -> tuple[dict, float]:
    started = time.monotonic()
    response = httpx.post(server.url + "/run_code", json={"code": code, "language": "python", **fields}, timeout=120)
    assert response.status_code == 200
    return response.json(), time.monotonic() - started


def test_10mb_stdout_returns_its_first_mebibyte_and_its_length(server):
    """10 MB of numbered lines: Success, the first MiB back in order (SandboxFusion cuts ~200 KB), the whole
    length reported and the cut flagged."""
    code = "import sys\nsys.stdout.write(''.join(f'{i:09d}\\n' for i in range(1_000_000)))\n"
    body, _ = _post_run(server, code)
    expected = "".join(f"{i:09d}\n" for i in range(1_000_000))
    run = body["run_result"]
    assert body["status"] == "Success" and run["truncated"] is True and run["stdout_length"] == 10_000_000
    assert run["stdout"] == expected[:1 << 20]


def test_stdout_and_stderr_both_large_return_both(server):
    """Both streams at once, 4 MB each, interleaved: neither is lost or stalls the other (each comes back up
    to the returned bound, with its whole length)."""
    code = ("import sys\nfor i in range(4096):\n"
            "    sys.stdout.write(chr(97 + i % 26) * 1024)\n    sys.stderr.write(chr(65 + i % 26) * 1024)\n")
    body, _ = _post_run(server, code)
    run = body["run_result"]
    assert body["status"] == "Success" and run["stdout_length"] == run["stderr_length"] == 4096 * 1024
    assert run["stdout"] == "".join(chr(97 + i % 26) * 1024 for i in range(1024))
    assert run["stderr"] == "".join(chr(65 + i % 26) * 1024 for i in range(1024))


def test_200mb_stdout_is_output_limit_exceeded(server):
    """200 one-MiB blocks, block i all ``chr(97 + i % 26)``: the run ends as OLE (Failed, ``truncated``), the
    first blocks come back intact and in order, and the answer is quick; never Success, never a false TLE."""
    code = "import sys\nfor i in range(200):\n    sys.stdout.write(chr(97 + i % 26) * (1 << 20))\n"
    body, seconds = _post_run(server, code)
    run = body["run_result"]
    assert body["status"] == "Failed"
    assert (run["status"], run["verdict"], run["truncated"]) == ("Finished", "OLE", True)
    assert run["return_code"] != 0
    stdout = run["stdout"]
    assert 1 << 20 <= len(stdout) < 200 << 20
    expected = "".join(chr(97 + i % 26) * (1 << 20) for i in range(len(stdout) // (1 << 20) + 1))
    assert stdout == expected[:len(stdout)]
    assert seconds < 30, f"the OLE answer took {seconds:.1f} s"


def test_stderr_flood_does_not_hang(server):
    body, seconds = _post_run(server, "import sys\nwhile True:\n    sys.stderr.write('e' * 65536)\n", run_timeout=5)
    assert body["status"] == "Failed"
    assert body["run_result"]["verdict"] == "OLE" and body["run_result"]["truncated"] is True
    assert set(body["run_result"]["stderr"]) == {"e"}
    assert seconds < 20, f"the stderr flood took {seconds:.1f} s to answer"


# --- files and fetch_files ---------------------------------------------------------------------------------------


def test_files_and_fetch_files_round_trip(server):
    """Files go into the run's work folder (relative paths, sub-folders; ``null`` skipped) or at their absolute
    paths (tests/server/test_server_abs_paths.py); ``fetch_files`` brings files back base64 under the exact
    requested key; missing ones are omitted."""
    data = bytes(range(256)) * 4
    code = ("import os\n"
            "print(open('input.txt').read())\n"
            "print(open('nested/deeper/blob.bin', 'rb').read() == bytes(range(256)) * 4)\n"
            "print(os.path.exists('skipped.txt'))\n"
            "os.makedirs('out', exist_ok=True)\n"
            "open('out/result.txt', 'w').write('made by the program')\n")
    body, _ = _post_run(server, code,
                        files={"input.txt": base64.b64encode(b"hello file").decode(),
                               "nested/deeper/blob.bin": base64.b64encode(data).decode(),
                               "/mnt/data/mapped.conf": base64.b64encode(b"k=v").decode(), "skipped.txt": None},
                        fetch_files=["out/result.txt", "nested/deeper/blob.bin", "/mnt/data/mapped.conf",
                                     "missing.txt"])
    assert body["status"] == "Success", body
    assert body["run_result"]["stdout"] == "hello file\nTrue\nFalse\n"
    assert set(body["files"]) == {"out/result.txt", "nested/deeper/blob.bin", "/mnt/data/mapped.conf"}
    assert base64.b64decode(body["files"]["out/result.txt"]) == b"made by the program"
    assert base64.b64decode(body["files"]["nested/deeper/blob.bin"]) == data
    assert base64.b64decode(body["files"]["/mnt/data/mapped.conf"]) == b"k=v"


@pytest.mark.parametrize("path", ["../escape.txt", "a/../../escape.txt", "..", "sub/..", "/tmp/../etc/passwd", ""])
@pytest.mark.parametrize("field", ["files", "fetch_files"])
def test_paths_leaving_the_work_folder_are_422(server, field, path):
    value = {path: base64.b64encode(b"x").decode()} if field == "files" else [path]
    response = httpx.post(server.url + "/run_code", json={"code": "print(1)", "language": "python", field: value})
    assert response.status_code == 422
    assert "not allowed" in response.text and response.json()["detail"][0]["loc"] == ["body", field]


# --- the official client, every language it can name ----------------------------------------------------------

# The client's own Language names, and the judgebox language each runs as.
CLIENT_NAMES = {"python": "python", "cpp": "cpp", "nodejs": "javascript", "go": "go", "java": "java", "php": "php",
                "csharp": "csharp", "bash": "bash", "typescript": "typescript", "rust": "rust", "lua": "lua",
                "R": "r", "perl": "perl", "ruby": "ruby"}


@pytest.mark.parametrize("client_name", sorted(CLIENT_NAMES))
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_client_runs_every_language_the_server_supports(client_endpoint, client_name):
    """Hello (the self-test echo), stdin sum, runtime error, compile error and timeout, per language, through the
    unchanged client; a compiled language reports its compile step the way SandboxFusion does."""
    from judgebox.languages import get
    from support.conformance import _load

    spec = get(CLIENT_NAMES[client_name])
    programs = _load(spec.name)

    def run(code, stdin="", run_timeout=20):
        request = RunCodeRequest(code=code, language=client_name, stdin=stdin, run_timeout=run_timeout,
                                 compile_timeout=30)
        return run_code(request, max_attempts=1, client_timeout=120)

    hello = run(spec.self_test.code, spec.self_test.stdin)
    assert hello.status == RunStatus.Success, hello
    assert hello.run_result.stdout.split() == spec.self_test.expected.split()
    assert (hello.compile_result is not None) == spec.compiled
    assert run(programs["sum"], "20 22").run_result.stdout.split() == ["42"]
    crashed = run(programs["crash"])
    assert crashed.status == RunStatus.Failed and crashed.run_result.status == CommandRunStatus.Finished
    assert crashed.run_result.return_code != 0
    broken = run(programs["syntax_error"])
    assert broken.status == RunStatus.Failed
    if spec.compiled:  # verl maps this to -4
        assert broken.run_result is None and broken.compile_result.return_code != 0
    else:  # no compile step: a failed run, as SandboxFusion reports it (-2)
        assert broken.run_result.return_code != 0
    slow = run(programs["busy"], run_timeout=1)
    assert slow.status == RunStatus.Failed and slow.run_result.status == CommandRunStatus.TimeLimitExceeded
