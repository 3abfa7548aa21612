"""The bodies judgebox.client sends: judgebox's records (``Submission``, ``Case``, ``Limits``, a parsed checker),
pydantic models or dicts, as the JSON of ``/run_code``, ``/judge`` and ``/judge/batch``."""

from __future__ import annotations

import dataclasses
import json
from base64 import b64encode
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from judgebox.errors import InvalidCases, InvalidInput
from judgebox.types import Case, Limits, Submission
from judgebox.wire.schemas import LimitsModel


def run_code_body(code: str, language: str, stdin: str | None, run_timeout: float, compile_timeout: float,
                  memory_limit_mb: int, files: dict[str, str | bytes] | None, fetch_files: list[str] | None) -> dict:
    if files is not None and not isinstance(files, Mapping):
        raise InvalidInput(f"files must map paths to text or bytes, got {type(files).__name__}")
    encoded = {path: b64encode(data).decode() if isinstance(data, bytes) else data
               for path, data in (files or {}).items()}
    return {"code": code, "language": language, "stdin": stdin, "run_timeout": run_timeout,
            "compile_timeout": compile_timeout, "memory_limit_MB": memory_limit_mb, "files": encoded,
            "fetch_files": list(fetch_files or [])}


def judge_body(code: str, cases: Iterable[Case | dict] | None, test_cases: dict | str | None, language: str,
               limits: Limits | LimitsModel | dict | None, checker: str | dict | None,
               stop_on_first_failure: bool) -> dict:
    if isinstance(test_cases, (str, bytes)):
        try:
            test_cases = json.loads(test_cases)
        except ValueError as exc:
            raise InvalidCases(f"test cases are text but not JSON: {exc}") from None
    try:
        cases = None if cases is None else list(cases)
    except TypeError:
        raise InvalidCases(f"cases must be a list of judgebox.Case or dicts, got {type(cases).__name__}") from None
    return submission_body({"code": code, "cases": cases,
                            "test_cases": test_cases, "language": language, "limits": limits, "checker": checker,
                            "stop_on_first_failure": stop_on_first_failure})


def submission_body(submission: Submission | BaseModel | dict) -> dict:
    """A ``Submission`` record, a ``JudgeRequest`` or a dict as ``/judge``'s body; cases may be ``Case`` records.
    An interactive problem's cases travel as test data (``test_cases``), which names its interactor."""
    body = _trim(_fields(submission))
    interactor = body.pop("interactor", None)
    if interactor is not None:
        body["test_cases"] = _interactive_test_data(body.pop("cases"), interactor)
    elif "cases" in body:
        body["cases"] = [_trim(_fields(case)) for case in body["cases"]]
    return body


def _interactive_test_data(cases: Iterable[Case], interactor: Any) -> dict:
    """An interactive problem's stdio cases (its interactor's inputs, and the answers its checker reads) in
    the test data's form. Limits are the submission's (``Submission.limits`` travels beside)."""
    inputs, outputs = [], []
    for case in cases:
        if case.kind != "stdio" or case.io != "stdio" or case.limits is not None:
            raise InvalidCases("an interactive problem sent to a server has stdio cases without limits of their own")
        inputs.append(case.stdin.decode("utf-8", "surrogateescape"))
        outputs.append(case.expected_output or "")
    return {"inputs": inputs, "outputs": outputs, "interactor": _fields(interactor)}  # its language, code, protocol


def _fields(record: Any) -> dict:
    if isinstance(record, BaseModel):
        return record.model_dump()
    if dataclasses.is_dataclass(record):  # judgebox's records name their fields as the wire does
        return {field.name: getattr(record, field.name) for field in dataclasses.fields(record)}
    if not isinstance(record, Mapping):
        raise InvalidInput(f"expected a judgebox record, a pydantic model or a dict, got {type(record).__name__}")
    return dict(record)


def _trim(body: dict) -> dict:
    """Drops None (the server's defaults apply), decodes stdin bytes, and sends a ``Limits`` record as the
    wire's fields (all of them: a test checks that the two agree)."""
    body = {key: value for key, value in body.items() if value is not None}
    if isinstance(body.get("stdin"), bytes):
        body["stdin"] = body["stdin"].decode("utf-8", "surrogateescape")
    if hasattr(body.get("checker"), "setting"):  # a parsed checker (judgebox.checkers.Checking) as its setting
        body["checker"] = body["checker"].setting()
    if isinstance(body.get("limits"), Limits):
        body["limits"] = {name: getattr(body["limits"], name) for name in LimitsModel.model_fields}
    elif "limits" in body:
        body["limits"] = _fields(body["limits"])
    return body
