"""``profile="judgebox"`` on a SandboxFusion server that is not judgebox: one /run_code request per case.

Expected outputs never leave this process, stdout is compared with the submission's checker, and call
results come back as JSON in a file the server returns (``fetch_files``), not on stdout. What such a
server cannot give is the two-process harness: Python assert cases run in the program's process and pass
on positive evidence only (a random word written after the last assertion), so exiting early fails, but a
program that reads its own source to find the word could forge it. Use a judgebox server or the embedded
judge where that matters. Other languages' call or assert cases need judgebox's own harnesses.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from typing import TYPE_CHECKING, Any

from judgebox import checkers
from judgebox.errors import InvalidCases
from judgebox.types import Case, Submission
from judgebox.verdicts import Verdict
from judgebox.verl.outcome import CaseVerdict
from judgebox.verl.parity import request_body, sandbox_language

if TYPE_CHECKING:
    from judgebox.backends.sandboxfusion import RunCodeServer

VALUE_FILE = "judgebox_value.json"
EVIDENCE_FILE = "judgebox_evidence.txt"

# Appended to the program for a call-based case; the arguments arrive on stdin as one JSON list.
_CALL_SUFFIX = """

def _judgebox_call(_name):
    import json as _json, sys as _sys
    _scope = globals()
    _solution = _scope.get("Solution")
    if _solution is not None and hasattr(_solution, _name):
        _target = getattr(_solution(), _name)
    elif callable(_scope.get(_name)):
        _target = _scope[_name]
    else:
        raise NameError(f"the program defines no function or Solution method {{_name!r}}")
    _value = _target(*_json.loads(_sys.stdin.read()))
    with open({value_file!r}, "w") as _out:
        _json.dump({{"value": _value}}, _out,
                   default=lambda v: sorted(v) if isinstance(v, (set, frozenset)) else repr(v))


_judgebox_call({fn_name!r})
"""


def judge_on_run_code_server(server: RunCodeServer, submission: Submission, semaphore: Any) -> list[CaseVerdict]:
    language = sandbox_language(submission.language)
    if language != "python" and any(case.kind != "stdio" for case in submission.cases):
        raise InvalidCases(f"{submission.language} call and assert cases need a judgebox server or the embedded "
                           "judge (sandbox_fusion_url=None); a SandboxFusion server runs stdio cases only")
    if submission.interactor is not None:
        # /run_code has no interactor: each case would be the program on its input against an empty answer,
        # which a program that prints nothing passes
        raise InvalidCases("an interactive problem needs the embedded judge or ray:// (sandbox_fusion_url=None): "
                           "a SandboxFusion server runs no interactor")
    if any(case.io == "file" for case in submission.cases):
        # /run_code fetches files only up to its returned bound, far below the output cap stdout has
        raise InvalidCases('input_mode "file" needs a judgebox server or the embedded judge '
                           "(sandbox_fusion_url=None): a SandboxFusion server judges stdout")
    plans = [_plan(submission, case) for case in submission.cases]
    limits = submission.limits
    bodies = []
    for program, stdin, fetch, _ in plans:
        body = request_body(program, stdin, 10, limits.cpu_time, limits.memory_mb, language)
        body["fetch_files"] = fetch
        bodies.append(body)
    replies = server.run_code(bodies, semaphore)
    return [_verdict(submission, case, word, response, error)
            for case, (_, _, _, word), (response, error) in zip(submission.cases, plans, replies)]


def _plan(submission: Submission, case: Case) -> tuple[str, str | None, list[str], str]:
    """The program, its stdin, the files to fetch and the evidence word of one case."""
    if case.kind == "call":
        program = submission.code + _CALL_SUFFIX.format(value_file=VALUE_FILE, fn_name=case.fn_name)
        return program, json.dumps(list(case.args)), [VALUE_FILE], ""
    if case.kind == "assert":
        word = secrets.token_hex(16)
        evidence = f"\n\nwith open({EVIDENCE_FILE!r}, 'w') as _judgebox_out:\n    _judgebox_out.write({word!r})\n"
        return submission.code + "\n\n" + (case.assert_code or "") + evidence, None, [EVIDENCE_FILE], word
    return submission.code, case.stdin.decode("utf-8", "surrogateescape"), [], ""


def _verdict(submission: Submission, case: Case, word: str, response: dict[str, Any] | None,
             error: str | None) -> CaseVerdict:
    if error is not None or not isinstance(response, dict):
        return CaseVerdict("SE", api_error=error or "API Call Failed: no answer")
    compiled, ran = response.get("compile_result") or {}, response.get("run_result") or {}
    seen: dict[str, Any] = dict(stdout=ran.get("stdout"), stderr=ran.get("stderr"), exit_code=ran.get("return_code"),
                duration=ran.get("execution_time"), api_response=response)
    status = response.get("status")
    if status == "SandboxError" or status not in ("Success", "Failed"):
        return CaseVerdict("SE", message=str(response.get("message") or status), **seen)
    if status == "Failed" and compiled and (compiled.get("status") != "Finished" or compiled.get("return_code")):
        return CaseVerdict("CE", message=str(compiled.get("stderr") or ""), **seen)
    if ran.get("status") == "TimeLimitExceeded":
        return CaseVerdict("TLE", message="time limit exceeded", **seen)
    if status == "Failed" or ran.get("status") != "Finished" or ran.get("return_code") != 0:
        if case.kind == "assert" and _last_line(ran.get("stderr")).startswith("AssertionError"):
            return CaseVerdict("WA", message="assertion failed", **seen)
        return CaseVerdict("RE", message=f"exit code {ran.get('return_code')}", **seen)
    if case.kind == "stdio":
        check = checkers.get(submission.checker)(ran.get("stdout") or "", case.expected_output or "")
        return CaseVerdict(str(check.verdict), message=check.message, **seen)
    fetched = _fetched(response, VALUE_FILE if case.kind == "call" else EVIDENCE_FILE)
    if case.kind == "assert":
        passed = fetched == word
        return CaseVerdict("AC" if passed else "WA", message="" if passed else "the tests did not finish", **seen)
    try:
        value = json.loads(fetched or "")["value"]
    except (ValueError, KeyError, TypeError):
        return CaseVerdict("WA", message="the function returned no value", **seen)
    if checkers.parse(submission.checker).value(value, case.expected_value).verdict is Verdict.AC:
        return CaseVerdict("AC", **seen)
    return CaseVerdict("WA", message=f"expected {case.expected_value!r:.200}, got {value!r:.200}", **seen)


def _last_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[-1] if lines else ""


def _fetched(response: dict[str, Any], name: str) -> str | None:
    content = (response.get("files") or {}).get(name)
    if not isinstance(content, str):
        return None
    try:
        return base64.b64decode(content).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None
