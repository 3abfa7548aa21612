"""``profile="judgebox"`` (the default), and the presets that judge in judgebox's sandbox
(:mod:`judgebox.presets`: ``prime``, ``livecodebench``, ``codecontests``, ``sandboxfusion``).

- The program is the final answer's fenced block of the test cases' language, after any ``<think>``
  section (``Python3``, ``py`` and ``python3`` tags; an unclosed fence at the end of a cut-off generation),
  or an answer without fences that is a bare program (:func:`judgebox.languages.extract.answer_code`).
- Stdin cases are checked by the preset's checker (judgebox: ``float``, tokens with numbers within 1e-6
  absolute or relative, integers exactly), or by the test data's own ``checker``; its ``time_limit`` and
  ``memory_limit`` replace ``timeout`` and ``memory_limit_mb``.
- Call-based cases call ``Solution().method`` before a global function; the value comes back as data
  through the judge's own channel, not stdout, so debug prints do no harm; it compares as a value (a
  tuple equals a list, floats within 1e-6, integers exactly); a function that raises fails (RE).
- Assert cases run in the tamper-proof two-process harness: exiting early, patching builtins, walking
  frames or redefining ``__eq__`` does not pass.
- The score (judgebox): what the cases earned over all cases, with ``continuous`` on or off (a program
  that fails any case never scores 1.0; a case earns 1, or its checker's points); ``binary=True``: 1.0
  if every case passes, else 0, stopping at the first failure. Other presets score as their harness
  does (verl's and prime's share of the first 10 cases when continuous, all or nothing otherwise).
- A failure of the sandbox or of the transport is ``sandbox_error``/``api_error`` in the metadata and sets
  ``infra_error``, so a trainer can mask the sample instead of learning from a 0 the policy did not earn.

Metadata per case carries verl's 15 keys plus ``verdict`` (judgebox's AC/WA/RE/TLE/MLE/OLE/CE/SE) and
``cpu_time`` (seconds, None from a SandboxFusion server that is not judgebox).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from judgebox import judging, languages, presets
from judgebox.backends import registry
from judgebox.backends.registry import Target
from judgebox.backends.sandboxfusion import RunCodeServer, held
from judgebox.errors import ClientError, InvalidCases, InvalidCode, JudgeboxError, UnknownAddress
from judgebox.judging.cases import load_problem
from judgebox.languages.extract import answer_code
from judgebox.types import Limits, Submission
from judgebox.verdicts import Verdict, headline
from judgebox.verl.on_foreign_server import judge_on_run_code_server
from judgebox.verl.outcome import CaseVerdict
from judgebox.verl.parity import DEFAULT_TIMEOUT, METADATA_KEYS

# judgebox verdict -> verl's result code and status string
RESULTS: dict[str, tuple[Any, str]] = {
    "AC": (True, "success"), "WA": (False, "wrong_answer"), "PE": (False, "wrong_answer"),
    "RE": (-2, "runtime_error"), "MLE": (-2, "memory_limit_exceeded"), "OLE": (-2, "output_limit_exceeded"),
    "TLE": (-3, "timeout"), "CE": (-4, "compile_error"), "SE": (-1, "sandbox_error"),
}
INFRA_STATUSES = frozenset({"sandbox_error", "api_error"})


@dataclass(frozen=True)
class Scored:
    score: float
    metadata: list[dict[str, Any]]
    passed: int = 0
    total: int = 0
    verdict: str = ""
    infra_error: bool = False
    error: str = ""
    limits: Limits | None = None  # what the cases ran under (the problem's own in place of the caller's)

    @classmethod
    def refused(cls, error: str, data_at_fault: bool = False) -> Scored:
        """Nothing ran. No code block, or code judgebox refuses to run, is the policy's doing: a 0. Test data
        judgebox cannot use is not: it sets ``infra_error`` too (no reward for the sample, as judgebox.rewards
        gives), so a broken dataset row is masked rather than taught as a failure."""
        return cls(0.0, [{"error": error}], verdict="invalid", infra_error=data_at_fault, error=error)


def score(sandbox_fusion_url: Target, concurrent_semaphore: Any, memory_limit_mb: Any, completion: object,
          test_cases: Any, continuous: bool = False, timeout: float = DEFAULT_TIMEOUT, preset: str = "judgebox",
          binary: bool = False) -> Scored:
    """Score a model's completion: its answer's code judged on the test cases."""
    if not isinstance(completion, str):
        return Scored.refused(f"the completion must be text, got {type(completion).__name__}")
    try:
        data = _test_data(test_cases)
        language = _language(data.get("language", "python"))
    except JudgeboxError as exc:
        return Scored.refused(str(exc), data_at_fault=True)
    code = answer_code(completion, language)
    if code is None:
        return Scored.refused("Invalid completion (missing code block)")
    return judge_code(sandbox_fusion_url, concurrent_semaphore, memory_limit_mb, code, data, language,
                      continuous, timeout, preset, binary)


def judge_code(sandbox_fusion_url: Target, concurrent_semaphore: Any, memory_limit_mb: Any, code: str,
               test_cases: Any, language: str = "python", continuous: bool = False,
               timeout: float = DEFAULT_TIMEOUT, preset: str = "judgebox", binary: bool = False) -> Scored:
    """Judge a program (already extracted) on the test cases (a test-case ``language`` wins)."""
    try:
        rules = presets.get(preset)
        reward = rules.reward(continuous, binary)
        problem = load_problem(_test_data(test_cases))
        spec = languages.get(_language(problem.language or language))
        if reward.cases is not None:
            problem = replace(problem, cases=problem.cases[:reward.cases])
        limits = Limits(cpu_time=float(timeout), memory_mb=int(memory_limit_mb or 1024))
        submission = judging.Judge.submission(code, problem, spec.name, limits, rules.checking,
                                              reward.stops_at_first_failure)
    except InvalidCode as exc:
        return Scored.refused(str(exc))
    except (JudgeboxError, TypeError, ValueError) as exc:
        return Scored.refused(str(exc), data_at_fault=True)
    verdicts = _judge(sandbox_fusion_url, submission, concurrent_semaphore)
    metadata = [_metadata(i, case, v) for i, (case, v) in enumerate(zip(submission.cases, verdicts))]
    passed = sum(1 for v in verdicts if v.verdict == "AC")
    infra = [m for m in metadata if m["status"] in INFRA_STATUSES]
    total = len(submission.cases)
    return Scored(reward.score([v.score for v in verdicts], total), metadata, passed, total, _headline(verdicts),
                  bool(infra), str(infra[0]["api_request_error"] or infra[0]["message"] or "") if infra else "",
                  submission.limits)


def _language(name: Any) -> str:
    """A language judgebox knows (any name or alias), else InvalidInput naming those it knows."""
    if languages.lookup(name) is None:
        languages.get(name)  # raises, with the list
    return name


def _test_data(test_cases: Any) -> Mapping[str, Any]:
    if isinstance(test_cases, (str, bytes)):
        try:
            test_cases = json.loads(test_cases)
        except ValueError:
            raise InvalidCases("Invalid test_cases JSON format") from None
    if not isinstance(test_cases, Mapping):
        raise InvalidCases("Invalid test_cases structure (missing inputs/outputs)")
    return test_cases


def _judge(url: Target, submission: Submission, semaphore: Any) -> list[CaseVerdict]:
    """Every case's verdict; a transport or judge failure is an api_error on every case."""
    try:
        backend = registry.shared(url)
        if isinstance(backend, RunCodeServer):
            return judge_on_run_code_server(backend, submission, semaphore)
        with held(semaphore):
            judged = backend.judge_submission(submission)
    except UnknownAddress:
        raise  # a sandbox_fusion_url that names no server is the caller's to hear, not each sample's SE
    except (ClientError, JudgeboxError, OSError) as exc:
        failure = f"API Call Failed: {type(exc).__name__}: {exc}"
        return [CaseVerdict("SE", api_error=failure) for _ in submission.cases]
    if judged.verdict is Verdict.SE and not judged.cases:  # the backend could not judge it (a server down)
        return [CaseVerdict("SE", api_error=f"API Call Failed: {judged.message}") for _ in submission.cases]
    verdicts = [CaseVerdict(str(c.verdict), c.stdout, c.stderr, c.exit_code, c.wall_time, c.message,
                            points=getattr(c, "points", None), cpu_time=c.cpu_time) for c in judged.cases]
    if submission.stop_on_first_failure and verdicts and verdicts[-1].verdict != "AC":
        return verdicts  # stopped at a failure, as asked: the cases after it were not run
    missing = len(submission.cases) - len(verdicts)  # a judge never drops cases; if one did, it failed
    return verdicts + [CaseVerdict("SE", message="the judge returned no result for this case")] * missing


def _metadata(index: int, case: Any, judged: CaseVerdict) -> dict[str, Any]:
    result, status = RESULTS.get(judged.verdict, (-1, "sandbox_error"))
    if judged.api_error is not None:
        status = "api_error"
    meta = dict.fromkeys(METADATA_KEYS)
    meta.update(case_index=index, input=_shown_input(case), expected_output=_shown_expected(case),
                api_request_error=judged.api_error, api_response=judged.api_response, status=status,
                stdout=judged.stdout, stderr=judged.stderr, exit_code=judged.exit_code, duration=judged.duration,
                cpu_time=judged.cpu_time,
                run_status=None if judged.api_error else "TimeLimitExceeded" if judged.verdict == "TLE" else "Finished")
    meta["result"] = result
    meta["verdict"] = judged.verdict
    meta["message"] = judged.message
    return meta


def _shown_input(case: Any) -> str | None:
    if case.kind == "stdio":
        return case.stdin.decode("utf-8", "replace")
    if case.kind == "call":
        return "\n".join(json.dumps(a) for a in case.args)
    return case.assert_code


def _shown_expected(case: Any) -> str | None:
    if case.kind == "stdio":
        return case.expected_output
    if case.kind == "call":
        return json.dumps(case.expected_value, default=repr)
    return None


def _headline(verdicts: list[CaseVerdict]) -> str:
    return str(headline([Verdict(v.verdict) for v in verdicts]))
