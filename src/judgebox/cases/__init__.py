"""Turn the shapes test data comes in into :class:`judgebox.Case` records.

Accepted: a sequence of ``Case``; or verl's sandbox_fusion form (a dict, or its JSON text)::

    {"inputs": [stdin, ...], "outputs": [expected stdout, ...]}                  # stdin/stdout
    {"inputs": [...], "outputs": [...], "fn_name": "f"}                           # call-based
    {"inputs": ["", ...], "outputs": [None, ...], "assert_case": [code, ...]}      # assert-based

In the call-based form each input holds one JSON value per argument, one per line (or is the list of
arguments itself), and each output is the expected return value as JSON (or Python literal) text, or
the value itself. A stdin input of None is an empty input; numbers stand for their digits.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InvalidCases
from ..types import Case, Limits

__all__ = ["load_cases"]


def load_cases(test_cases: Any, limits: Limits | None = None) -> tuple[Case, ...]:
    if isinstance(test_cases, (str, bytes)):
        try:
            test_cases = json.loads(test_cases)
        except ValueError as exc:
            raise InvalidCases(f"test cases are text but not JSON: {exc}") from None
    if isinstance(test_cases, Mapping):
        cases = _from_verl(test_cases, limits)
    elif isinstance(test_cases, Sequence) and all(isinstance(c, Case) for c in test_cases):
        cases = tuple(test_cases)
    else:
        raise InvalidCases("test cases must be a list of judgebox.Case or a dict with inputs/outputs "
                           f"(verl's form), got {type(test_cases).__name__}")
    if not cases:
        raise InvalidCases("there are no test cases")
    return cases


def _from_verl(data: Mapping[str, Any], limits: Limits | None) -> tuple[Case, ...]:
    asserts = data.get("assert_case")
    if asserts is not None:
        if not _is_list_of(asserts, str):
            raise InvalidCases("assert_case must be a list of strings")
        return tuple(Case.asserts(code, limits) for code in asserts if code.strip())
    inputs, outputs = data.get("inputs"), data.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise InvalidCases("inputs and outputs must be lists")
    if len(inputs) != len(outputs):
        raise InvalidCases(f"{len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = data.get("fn_name")
    if fn_name is None:
        return tuple(Case.stdio(_text(i, "input", n), _text(o, "output", n), limits)
                     for n, (i, o) in enumerate(zip(inputs, outputs)))
    return tuple(Case.call(fn_name, i if isinstance(i, list) else _arguments(_text(i, "input", n), n),
                           _literal(o) if isinstance(o, str) else o, limits)
                 for n, (i, o) in enumerate(zip(inputs, outputs)))


def _text(value: Any, what: str, index: int) -> str:
    """Stdin and expected output as text: None is no input, a number is its digits."""
    if isinstance(value, str):
        return value
    if value is None and what == "input":
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise InvalidCases(f"{what} {index} must be text, got {type(value).__name__}")


def _arguments(text: str, index: int) -> list[Any]:
    try:
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    except ValueError as exc:
        raise InvalidCases(f"input {index}: each line must be one JSON value per argument ({exc})") from None


def _literal(text: str) -> Any:
    """An expected value written as JSON, or as a Python literal; else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def _is_list_of(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) for v in value)
