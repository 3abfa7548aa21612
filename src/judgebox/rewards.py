"""Rewards for whole batches of samples, the layer every trainer's reward interface is built on.

    results = await rewards.score_batch([
        {"completion": model_text, "test_cases": {"inputs": ["1 2"], "outputs": ["3"]}},
        {"code": "print(3)", "test_cases": test_cases_json, "language": "python", "limits": {"cpu_time": 2}},
    ])
    scores = [rewards.reward(r) for r in results]      # a float, or None: no reward for this sample

A sample is a mapping with exactly one of ``completion`` (a model's text: its program is extracted as
:mod:`judgebox.verl` does, :func:`judgebox.languages.extract.answer_code`) or ``code``, plus ``test_cases``
(a list of :class:`judgebox.Case`, or verl's test-case dict or its JSON text) and optionally ``language``
(else the test data's, else Python) and ``limits`` (a :class:`judgebox.Limits` or a dict of its fields).
Any other key, a sample of the wrong shape or limits out of range are the caller's mistake:
:class:`judgebox.InvalidInput` is raised before anything runs.

Every sample gets one :class:`judgebox.JudgeResult`, in the samples' order; one bad sample never raises
and is never dropped:

- no program in the completion (no code block of the language, an empty answer), or code judgebox
  refuses to run (larger than 4 MiB, not valid text): verdict ``CE``, ``total == 0``, no cases, and
  :func:`no_code` is True; :func:`reward` gives it 0.0 (the policy's own doing);
- test data judgebox cannot use, or a judge that failed (a pool that is closed, a server that
  is down, an unexpected exception): verdict ``SE`` with the reason in ``message``; :func:`reward` gives
  None. These are not the policy's doing, so no trainer may learn a 0 from them: each trainer's adapter
  turns None into its own "no reward for this sample" (a mask, a weight, TRL's None).

Every batch counts its samples, SE results and samples without code in :func:`stats` and logs one line
(logger ``judgebox.rewards``) with those counts; a batch with an SE is logged as a warning.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from judgebox import judging, languages, presets
from judgebox.backends import registry
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.errors import InvalidCode, InvalidInput, InvalidLimits, JudgeboxError, UnknownAddress
from judgebox.judging.cases import load_problem
from judgebox.languages.extract import answer_code
from judgebox.types import JudgeResult, Limits, Submission
from judgebox.verdicts import Verdict

__all__ = ["IN_FLIGHT", "NO_CODE", "SAMPLE_KEYS", "is_system_error", "no_code", "record_batch", "reward", "score_batch",
           "score_batch_sync", "stats"]

SAMPLE_KEYS = frozenset({"completion", "code", "test_cases", "language", "limits"})
NO_CODE = "no code block in the completion"  # the message of a sample whose completion holds no program
_CODE_REFUSED = "the code cannot be judged: "  # the message prefix of code judgebox refuses to run
# Submissions handed to the judge at once: enough to keep every slot of a large Ray cluster busy, few
# enough that the pending cases' jobs of a huge step are not all queued together
IN_FLIGHT = 4096

log = logging.getLogger("judgebox.rewards")
_counts = {"batches": 0, "samples": 0, "system_errors": 0, "no_code": 0}
_counts_lock = threading.Lock()


async def score_batch(samples: Iterable[Mapping[str, Any]], *, judge: Any = None, preset: str = "judgebox",
                      binary: bool = False, continuous: bool = True, limits: Limits | None = None,
                      in_flight: int = IN_FLIGHT) -> list[JudgeResult]:
    """Judge every sample concurrently on ``judge``: one JudgeResult per sample, in order.

    ``judge``: a :class:`judgebox.backend.Backend` (or anything with ``judge_submission_async``, or a
    blocking ``judge_submission``, run in threads), or an address (``"ray://"``, ``"judgebox://host:port"``,
    a list: this process's shared backend of it, :func:`judgebox.backends.registry.shared`); None is the
    process-wide embedded judge. ``preset`` (:mod:`judgebox.presets`) picks the checking and,
    with ``continuous`` and ``binary``, which cases run (verl's and prime's first 10 when continuous;
    ``binary`` stops at the first failure); pass the same three to :func:`reward`. ``limits``: the batch's
    limits where a sample gives none (default :class:`judgebox.Limits`; the test data's own time and
    memory limits win). ``in_flight``: at most that many submissions are handed to the judge at once (the
    rest wait their turn), so a step of 16,000 samples does not queue 300,000 cases' jobs at once.
    """
    rules = presets.get(preset)
    scoring = rules.reward(continuous, binary)
    if limits is not None and not isinstance(limits, Limits):
        raise InvalidLimits("limits must be a judgebox.Limits")
    if isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1:
        raise InvalidInput(f"in_flight must be a positive whole number, got {in_flight!r}")
    checked = [_validated(i, sample) for i, sample in enumerate(_listed(samples))]
    if judge is None or isinstance(judge, (str, list, tuple)):
        judge = registry.shared(judge)
        if isinstance(judge, RunCodeServer):
            raise UnknownAddress("a SandboxFusion server that is not judgebox runs programs, not samples: "
                                 "judge on judgebox serve, Ray or the embedded judge")
    prepared = [_submission(sample, rules, scoring, limits) for sample in checked]
    turns = asyncio.Semaphore(in_flight)
    results = list(await asyncio.gather(*(_judged(judge, item, turns) for item in prepared)))
    _count(results)
    return results


def score_batch_sync(samples: Iterable[Mapping[str, Any]], **options: Any) -> list[JudgeResult]:
    """:func:`score_batch` for callers without an event loop; called from inside a running loop (a
    notebook, an async trainer's thread), it runs the batch on a loop of its own in another thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(score_batch(samples, **options))
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(score_batch(samples, **options)))
        except BaseException as exc:  # re-raised in the caller's thread
            outcome.append(exc)
    worker = threading.Thread(target=run, name="judgebox-score-batch")
    worker.start()
    worker.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def reward(result: JudgeResult, *, preset: str = "judgebox", binary: bool = False,
           continuous: bool = True) -> float | None:
    """The sample's reward under the preset's scoring (pass what :func:`score_batch` was given): what the
    cases earned over their number, or all or nothing; None when the result has an SE anywhere (the
    judge failed: no reward for this sample, never a 0)."""
    if is_system_error(result):
        return None
    earned = [case.score for case in result.cases]
    return presets.get(preset).reward(continuous, binary).score(earned, result.total)


def is_system_error(result: JudgeResult) -> bool:
    """Whether the judge, not the program, decided this result (SE as the verdict or on any case)."""
    return result.verdict is Verdict.SE or any(case.verdict is Verdict.SE for case in result.cases)


def no_code(result: JudgeResult) -> bool:
    """Whether the sample had no program to run (no code block, or code judgebox refuses to run)."""
    return result.verdict is Verdict.CE and result.total == 0 and not result.cases


def stats() -> dict[str, int]:
    """Counts since the process started: ``batches``, ``samples``, ``system_errors`` (samples given no
    reward because the judge failed) and ``no_code``."""
    with _counts_lock:
        return dict(_counts)


# -- internals ------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Prepared:
    """A sample ready to judge, or the result it already has (no code, test data refused)."""

    submission: Submission | None = None
    result: JudgeResult | None = None


def _listed(samples: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if isinstance(samples, (str, bytes, Mapping)):
        raise InvalidInput("samples must be an iterable of sample mappings, not a single "
                           f"{type(samples).__name__}")
    try:
        return list(samples)
    except TypeError:
        raise InvalidInput(f"samples must be an iterable of sample mappings, got {type(samples).__name__}") from None


def _validated(index: int, sample: Any) -> Mapping[str, Any]:
    """The sample's shape, checked before anything runs: the caller's mistakes raise."""
    where = f"sample {index}"
    if not isinstance(sample, Mapping):
        raise InvalidInput(f"{where} must be a mapping, got {type(sample).__name__}")
    unknown = sorted(str(key) for key in sample if key not in SAMPLE_KEYS)
    if unknown:
        raise InvalidInput(f"{where}: unknown key {unknown[0]!r}; known: {', '.join(sorted(SAMPLE_KEYS))}")
    if ("completion" in sample) == ("code" in sample):
        raise InvalidInput(f"{where} needs exactly one of 'completion' (a model's text) or 'code'")
    text = sample.get("completion", sample.get("code"))
    if not isinstance(text, str):
        raise InvalidInput(f"{where}: the completion or code must be text, got {type(text).__name__}")
    if "test_cases" not in sample:
        raise InvalidInput(f"{where} has no 'test_cases'")
    language = sample.get("language")
    if language is not None and not isinstance(language, str):
        raise InvalidInput(f"{where}: language must be a name, got {type(language).__name__}")
    try:
        _limits(sample.get("limits"), None)
    except InvalidInput as exc:
        raise InvalidLimits(f"{where}: {exc}") from None
    return sample


def _submission(sample: Mapping[str, Any], rules: presets.Preset, scoring: presets.Reward,
                default_limits: Limits | None) -> _Prepared:
    """The sample's submission; test data that cannot be used is an SE result (the data, not
    the policy, is at fault), code that is not a program a CE result with no cases."""
    try:
        problem = load_problem(sample["test_cases"])
        language = sample.get("language") or problem.language or "python"
        spec = languages.get(language)
        if scoring.cases is not None:
            problem = dataclasses.replace(problem, cases=problem.cases[:scoring.cases])
    except (JudgeboxError, TypeError, ValueError) as exc:
        return _Prepared(result=_system_error(f"the sample's test data cannot be judged: {exc}", 0))
    sample_limits = _limits(sample.get("limits"), default_limits)  # checked by _validated
    code = sample["code"] if "code" in sample else answer_code(sample["completion"], spec.name)
    if code is None:
        return _Prepared(result=JudgeResult(Verdict.CE, (), 0, NO_CODE))
    try:
        return _Prepared(judging.Judge.submission(code, problem, spec.name, sample_limits, rules.checking,
                                                  scoring.stops_at_first_failure))
    except InvalidCode as exc:
        return _Prepared(result=JudgeResult(Verdict.CE, (), 0, _CODE_REFUSED + str(exc)))
    except (JudgeboxError, TypeError, ValueError) as exc:
        return _Prepared(result=_system_error(f"the sample's test data cannot be judged: {exc}",
                                              len(problem.cases)))


def _limits(given: Any, default: Limits | None) -> Limits | None:
    """A sample's limits (a Limits, or a dict of its fields), else the batch's."""
    if given is None or isinstance(given, Limits):
        return given if given is not None else default
    if not isinstance(given, Mapping):
        raise InvalidLimits(f"limits must be a judgebox.Limits or a dict of its fields, got {type(given).__name__}")
    fields = {f.name for f in dataclasses.fields(Limits)}
    unknown = sorted(str(key) for key in given if key not in fields)
    if unknown:
        raise InvalidLimits(f"unknown limit {unknown[0]!r}; known: {', '.join(sorted(fields))}")
    return Limits(**given)


async def _judged(judge: Any, item: _Prepared, turns: asyncio.Semaphore) -> JudgeResult:
    """The submission's result; any failure of the judge is an SE result, never an exception."""
    if item.result is not None:
        return item.result
    submission = item.submission
    assert submission is not None
    try:
        async with turns:
            if hasattr(judge, "judge_submission_async"):
                result = await judge.judge_submission_async(submission)
            else:
                result = await asyncio.get_running_loop().run_in_executor(None, judge.judge_submission,
                                                                          submission)
    except Exception as exc:
        return _system_error(f"the judge failed: {type(exc).__name__}: {exc}", len(submission.cases))
    if not isinstance(result, JudgeResult):
        return _system_error(f"the judge returned {type(result).__name__}, not a JudgeResult",
                             len(submission.cases))
    return result


def _system_error(message: str, total: int) -> JudgeResult:
    return JudgeResult(Verdict.SE, (), total, message)


def _count(results: list[JudgeResult]) -> None:
    errors = [r.message for r in results if is_system_error(r)]
    record_batch(len(results), len(errors), sum(1 for r in results if no_code(r)), errors[0] if errors else "")


def record_batch(samples: int, system_errors: int, without_code: int, first_error: str = "") -> None:
    """Count a batch in :func:`stats` and log its line; for adapters that judge elsewhere (a judgebox serve,
    a SandboxFusion server) and learn of judge failures from the answers."""
    with _counts_lock:
        _counts["batches"] += 1
        _counts["samples"] += samples
        _counts["system_errors"] += system_errors
        _counts["no_code"] += without_code
    if system_errors:
        log.warning("judgebox rewards: %d samples, %d without reward (judge failed; first: %s), %d without code",
                    samples, system_errors, first_error[:200], without_code)
    else:
        log.info("judgebox rewards: %d samples, 0 without reward, %d without code", samples, without_code)
