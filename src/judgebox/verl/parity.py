"""``profile="verl"``: verl 0.9.1's sandbox_fusion scorer, answer for answer.

The same programs and requests, the same classification of SandboxFusion's answers, the same scores,
statuses and metadata keys, so that a run can switch to judgebox without its rewards moving. verl's
known faults are kept on purpose here (``profile="judgebox"`` fixes them):

- only ```python (last one) or the first plain fence is read; raw code scores 0; ```Python3 keeps its tag
  line as code (a NameError);
- output is compared as ``stdout.rstrip("\\n") == expected.rstrip("\\n")``: trailing spaces, CRLF or float
  formatting fail a correct program;
- call-based cases run through a wrapper that star-imports 18 modules first (so a global such as
  ``re.search`` or ``heapq.merge`` shadows a ``Solution`` method of that name), prints the result
  (``json.dumps`` for list/dict/tuple/None/bool, ``str`` otherwise) and exits 0 when the function raises
  (with expected output ``""`` a raising function passes);
- assert cases are appended to the program: a program that exits 0 before them passes, and an empty
  ``assert_case`` list scores nothing but does not fail either;
- with ``continuous=True`` all cases run and only the first 10 are scored; a compile error (-4) marks every
  later case ``compile_error_skipped`` after all have run;
- an expected output that is falsy (``""``, ``0``) shows as None in the metadata.

Two differences, both about where the work runs, not what it scores: the test cases' ``language`` is
honoured (verl always sends python), and a dict of test cases is not modified in place.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from judgebox import judging, languages
from judgebox.backend import RunCodeResult
from judgebox.backends import registry
from judgebox.backends.registry import Target
from judgebox.backends.sandboxfusion import RunCodeServer, held
from judgebox.languages.extract import verl_solution

log = logging.getLogger("judgebox.verl")

# The 29 language names of SandboxFusion's API, as verl's client checks them.
SUPPORTED_LANGUAGES = [
    "python", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash", "typescript", "sql", "rust",
    "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala", "julia", "pytest", "junit", "kotlin_script", "jest",
    "verilog", "python_gpu", "lean", "swift", "racket",
]
METADATA_KEYS = ("case_index", "input", "expected_output", "api_request_error", "api_response", "status", "stdout",
                 "stderr", "exit_code", "duration", "compile_duration", "compile_stderr", "api_status",
                 "compile_status", "run_status")
CONTINUOUS_CASES = 10
DEFAULT_TIMEOUT = 10

# The call wrapper's star imports, in verl's order (later ones win a name), then plain imports of all but
# the last two. A program that uses ``Counter`` without importing it gets typing's, as under verl.
_STAR_IMPORTS = ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
                 "statistics", "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing")
_CALL_PROGRAM = """
import traceback
{star_imports}
{plain_imports}

{code}

_SANDBOX_FN_NAME = "{fn_name}"


def _judgebox_verl_call():
    # as verl: arguments are JSON lines; any failure to find or run the function prints nothing, exit 0
    _text = sys.stdin.read()
    _arguments = []
    if _text.strip():
        try:
            _arguments = [json.loads(_line) for _line in _text.split("\\n")]
        except json.JSONDecodeError as _error:
            sys.stderr.write(f"the arguments are not JSON lines: {{_error}}\\n")
            return None, True
    try:
        _target = None
        if _SANDBOX_FN_NAME in globals():
            _target = globals()[_SANDBOX_FN_NAME]
        elif "Solution" in globals():
            _target = getattr(globals()["Solution"](), _SANDBOX_FN_NAME)
        if not _target:
            sys.stderr.write(f"no function or method {{_SANDBOX_FN_NAME!r}}\\n")
            return None, True
        return _target(*_arguments), False
    except Exception:
        sys.stderr.write(traceback.format_exc())
        return None, True


if __name__ == "__main__":
    _value, _failed = _judgebox_verl_call()
    if not _failed:
        if isinstance(_value, (dict, list, tuple)) or _value is None or isinstance(_value, bool):
            print(json.dumps(_value))
        else:
            print(str(_value))
"""


def call_program(code: str, fn_name: str) -> str:
    """The program verl runs for a call-based case of ``fn_name`` (Python only)."""
    return _CALL_PROGRAM.format(
        star_imports="\n".join(f"from {m} import *" for m in _STAR_IMPORTS),
        plain_imports="\n".join(f"import {m}" for m in _STAR_IMPORTS[:-2]),
        code=code, fn_name=fn_name)


def sandbox_language(name: Any) -> Any:
    """A test case's language as SandboxFusion names it (``js`` -> ``nodejs``, ``c++`` -> ``cpp``), when
    judgebox knows it by another name; otherwise unchanged (and refused later if unsupported)."""
    if name in SUPPORTED_LANGUAGES:
        return name
    spec = languages.lookup(name)
    if spec is not None:
        for candidate in (spec.name, *spec.aliases):
            if candidate in SUPPORTED_LANGUAGES:
                return candidate
    return name


def request_body(code: str, stdin: str | None, compile_timeout: Any, run_timeout: Any, memory_limit_mb: Any,
                 language: str) -> dict[str, Any]:
    """A /run_code request exactly as verl sends it."""
    return {"compile_timeout": compile_timeout, "run_timeout": run_timeout, "code": code, "stdin": stdin,
            "memory_limit_MB": memory_limit_mb, "language": language, "files": {}, "fetch_files": []}


def refusal(sandbox_fusion_url: Target, language: str) -> str | None:
    """verl refuses languages outside SandboxFusion's list before sending; the embedded judge also runs
    judgebox's own (``cpp20``, ``pypy``...)."""
    if language in SUPPORTED_LANGUAGES:
        return None
    if isinstance(registry.shared(sandbox_fusion_url), judging.Judge) and languages.lookup(language) is not None:
        return None
    return f"[Request ID: {uuid.uuid4()}] Unsupported language: {language}"


def call_sandbox_api(sandbox_fusion_url: Target, code: str, stdin: str | None, compile_timeout: float,
                     run_timeout: float, memory_limit_mb: int, language: str = "python") -> RunCodeResult:
    """Run one program: ``(SandboxFusion answer, None)`` or ``(None, "API Call Failed: ...")``."""
    refused = refusal(sandbox_fusion_url, language)
    if refused is not None:
        return RunCodeResult(None, refused)
    body = request_body(code, stdin, compile_timeout, run_timeout, memory_limit_mb, language)
    return run_code(sandbox_fusion_url, [body])[0]


def run_code(sandbox_fusion_url: Target, bodies: list[dict[str, Any]], semaphore: Any = None
             ) -> list[RunCodeResult]:
    """The requests answered by the backend of ``sandbox_fusion_url``. A foreign SandboxFusion server gets
    one request per body, each under verl's semaphore as verl holds it; a judgebox backend gets them all at
    once under one hold (its own pool, not the semaphore, bounds the work)."""
    backend = registry.shared(sandbox_fusion_url)
    if isinstance(backend, RunCodeServer):
        return backend.run_code(bodies, semaphore)
    with held(semaphore):
        return backend.run_code(bodies)


def _process_single_case(case_index: int, stdin_data: Any, expected_output: Any, sandbox_fusion_url: Target,
                         generation: str, timeout: float, memory_limit_mb: int, language: str,
                         concurrent_semaphore: Any = None, fn_name: str | None = None) -> tuple[Any, dict[str, Any]]:
    """Run and classify one case, as verl's agent tool calls it."""
    program = call_program(generation, fn_name) if fn_name and language == "python" else generation
    stdin = None if stdin_data is None else str(stdin_data)
    try:
        with held(concurrent_semaphore):
            response, error = call_sandbox_api(sandbox_fusion_url, program, stdin, timeout, timeout,
                                               memory_limit_mb, language)
    except Exception as exc:
        response, error = None, f"API Request Exception during check_correctness for case {case_index + 1}: {exc}"
    return classify(case_index, stdin, expected_output, response, error)


def check_correctness(sandbox_fusion_url: Target, in_outs: dict | None, generation: str,
                      timeout: float = DEFAULT_TIMEOUT, memory_limit_mb: int = 1024, language: str = "python",
                      concurrent_semaphore: Any = None) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run every case; results True / False / -1 (api or sandbox error) / -2 (runtime error) /
    -3 (timeout) / -4 (compile error), and one metadata dict per case, in the cases' order."""
    if not in_outs or "inputs" not in in_outs or "outputs" not in in_outs:
        return [-1], [{"error": "Invalid input/output data"}]
    inputs, outputs = in_outs["inputs"], in_outs["outputs"]
    count = len(inputs)
    appended = in_outs.get("assert_case", [""] * count)
    if count == 0:
        return [], []
    if len(outputs) != count or len(appended) != count:
        return [-1] * count, [{"error": "Input/output count mismatch", "case_index": i} for i in range(count)]

    fn_name = in_outs.get("fn_name")
    stdins = [None if x is None else str(x) for x in inputs]
    refused = refusal(sandbox_fusion_url, language)
    if refused is not None:
        replies = [RunCodeResult(None, refused)] * count
    else:
        programs = [generation + "\n\n" + appended[i] for i in range(count)]
        if fn_name and language == "python":
            programs = [call_program(p, fn_name) for p in programs]
        bodies = [request_body(p, s, timeout, timeout, memory_limit_mb, language) for p, s in zip(programs, stdins)]
        replies = run_code(sandbox_fusion_url, bodies, concurrent_semaphore)

    results, metadata = [], []
    for i, (response, error) in enumerate(replies):
        result, meta = classify(i, stdins[i], outputs[i], response, error)
        results.append(result)
        metadata.append(meta)
    first_compile_error = next((i for i, r in enumerate(results) if _is_code(r, -4)), None)
    if first_compile_error is not None:
        for i in range(first_compile_error + 1, count):
            if not _is_code(results[i], -4):
                results[i] = -4
                metadata[i]["status"] = "compile_error_skipped"
    return results, metadata


def classify(case_index: int, stdin: str | None, expected: Any, response: dict[str, Any] | None,
             error: str | None) -> tuple[Any, dict[str, Any]]:
    """A SandboxFusion answer as verl reads it: the case's result and its 15-key metadata."""
    meta: dict[str, Any] = dict.fromkeys(METADATA_KEYS)
    meta.update(case_index=case_index, input=stdin, expected_output=str(expected) if expected else None,
                api_request_error=error, status="unknown")
    if error:
        meta["status"] = "api_error"
        return -1, meta
    if not response:
        meta["status"] = "unknown_api_state"
        return -1, meta
    compiled, ran = response.get("compile_result"), response.get("run_result")
    meta.update(api_response=response, api_status=response.get("status"))
    if compiled:
        meta.update(compile_status=compiled.get("status"), compile_duration=compiled.get("execution_time"),
                    compile_stderr=compiled.get("stderr"))
    if ran:
        meta.update(run_status=ran.get("status"), stdout=ran.get("stdout"), stderr=ran.get("stderr"),
                    exit_code=ran.get("return_code"), duration=ran.get("execution_time"))
    status, result = _judged(meta, compiled, ran, expected)
    meta["status"] = status
    return result, meta


def _judged(meta: dict[str, Any], compiled: dict | None, ran: dict | None, expected: Any) -> tuple[str, Any]:
    api_status = meta["api_status"]
    if api_status == "SandboxError":
        return "sandbox_error", -1
    if api_status == "Failed":
        if compiled and (meta["compile_status"] in ("Error", "TimeLimitExceeded")
                         or (meta["compile_status"] == "Finished" and compiled.get("return_code") != 0)):
            return ("compile_timeout" if meta["compile_status"] == "TimeLimitExceeded" else "compile_error"), -4
        if not ran:
            return "unknown_failure_state", -1
        if meta["run_status"] == "TimeLimitExceeded":
            return "timeout", -3
        if meta["run_status"] == "Error" or (meta["run_status"] == "Finished" and ran.get("return_code") != 0):
            return "runtime_error", -2
        return "unknown_failure", -1
    if api_status == "Success":
        if not (ran and meta["run_status"] == "Finished"):
            return "unexpected_success_state", -1
        stdout = meta["stdout"] if meta["stdout"] is not None else ""
        if expected is None or str(stdout).rstrip("\n") == str(expected).rstrip("\n"):
            return "success", True
        return "wrong_answer", False
    return f"unknown_api_status_{api_status}", -1


def _is_code(result: Any, code: int) -> bool:
    """``result == code`` without counting True as 1 (results mix bools and ints)."""
    return not isinstance(result, bool) and result == code


def compute_score(sandbox_fusion_url: Target, concurrent_semaphore: Any, memory_limit_mb: Any,
                  completion: str, test_cases: Any, continuous: bool = False,
                  timeout: float = DEFAULT_TIMEOUT) -> tuple[float, list[dict[str, Any]]]:
    """verl's ``sandbox_fusion.compute_score``: ``(score, metadata)``."""
    solution = verl_solution(completion)
    if solution is None:
        return 0.0, [{"error": "Invalid completion (missing code block)"}]
    metadata: list[dict[str, Any]] | None = None
    try:
        if not isinstance(test_cases, dict):
            try:
                test_cases = json.loads(test_cases)
            except json.JSONDecodeError:
                return 0.0, [{"error": "Invalid test_cases JSON format"}]
        if test_cases is not None and "assert_case" in test_cases and isinstance(test_cases.get("assert_case"), list):
            test_cases = dict(test_cases)
            test_cases.setdefault("inputs", [""] * len(test_cases["assert_case"]))
            test_cases.setdefault("outputs", [None] * len(test_cases["assert_case"]))
        elif not test_cases or "inputs" not in test_cases or "outputs" not in test_cases:
            return 0.0, [{"error": "Invalid test_cases structure (missing inputs/outputs)"}]
        if test_cases.get("interactor") is not None:
            # verl compares stdout with the outputs, which an interactive problem leaves empty: an empty
            # program would score 1.0. Such a problem is judged by profile "judgebox" only.
            return 0.0, [{"error": "an interactive problem (interactor) cannot be judged by profile 'verl'; "
                                   "use profile 'judgebox'"}]
        if test_cases.get("input_mode", "stdio") != "stdio":
            # verl gives the input on stdin and compares stdout: a problem that reads input.txt and writes
            # output.txt would score 0 for its right solutions. Profile "judgebox" runs such problems.
            return 0.0, [{"error": f"input_mode {test_cases['input_mode']!r} (input.txt/output.txt) cannot be "
                                   "judged by profile 'verl'; use profile 'judgebox'"}]
        language = sandbox_language(test_cases.get("language", "python"))
        results, metadata = check_correctness(sandbox_fusion_url, test_cases, solution, timeout,
                                              memory_limit_mb, language, concurrent_semaphore)
        if not results:
            return 0.0, metadata
        scored = results[:CONTINUOUS_CASES] if continuous else results
        return float(sum(1 for r in scored if r is True) / len(scored)), metadata
    except Exception as exc:  # as verl: the score is 0 and the metadata says why
        log.exception("judgebox.verl: scoring failed")
        return 0.0, metadata if metadata is not None else [{"error": f"Unhandled exception: {exc}"}]
