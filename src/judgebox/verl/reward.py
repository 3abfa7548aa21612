"""The functions verl calls, each taking ``profile=``: ``"judgebox"`` (default), ``"verl"`` (verl 0.9.1's own
answers, :mod:`.parity`) or another preset of :mod:`judgebox.presets` (``prime``, ``livecodebench``,
``codecontests``, ``sandboxfusion``), and ``binary=True`` for an all-or-nothing reward (not with "verl")."""

from __future__ import annotations

import json
from typing import Any

from judgebox import presets
from judgebox.backends.registry import Target
from judgebox.errors import InvalidInput, UnknownPreset, UnsupportedDataSource
from judgebox.verl import judgebox_profile, parity
from judgebox.verl.parity import DEFAULT_TIMEOUT

PROFILES = tuple(presets.PRESETS)
# The data sources verl 0.9.1 sends to its code scorers; the judgebox profile also takes any whose
# ground truth is test cases (livecodebench, kodcode, humaneval, ...).
VERL_CODE_SOURCES = frozenset({"codecontests", "apps", "codeforces", "taco"})
# default_compute_score's dict: every call returns these keys (verl builds its batch from the first
# sample's keys), with scalar values.
RESULT_KEYS = ("score", "acc", "passed", "total", "verdict", "infra_error", "error")


def compute_score(sandbox_fusion_url: Target, concurrent_semaphore: Any, memory_limit_mb: Any, completion: str,
                  test_cases: Any, continuous: bool = False, timeout: float = DEFAULT_TIMEOUT,
                  profile: str = "judgebox", binary: bool = False) -> tuple[float, list[dict[str, Any]]]:
    """verl's ``sandbox_fusion.compute_score``, positional order included: ``(score, per-case metadata)``."""
    if _profile(profile, binary) == "verl":
        return parity.compute_score(sandbox_fusion_url, concurrent_semaphore, memory_limit_mb, completion,
                                    test_cases, continuous, timeout)
    scored = judgebox_profile.score(sandbox_fusion_url, concurrent_semaphore, memory_limit_mb, completion,
                                    test_cases, continuous, timeout, profile, binary)
    return scored.score, scored.metadata


def check_correctness(sandbox_fusion_url: Target, in_outs: Any, generation: str, timeout: float = DEFAULT_TIMEOUT,
                      memory_limit_mb: int = 1024, language: str = "python", concurrent_semaphore: Any = None,
                      profile: str = "judgebox", binary: bool = False) -> tuple[list[Any], list[dict[str, Any]]]:
    """Judge ``generation`` (code, not a completion) on every case: ``(results, metadata)`` in the cases'
    order, results True / False / -1 (sandbox or transport error) / -2 (runtime error, MLE, OLE) /
    -3 (timeout) / -4 (compile error)."""
    if _profile(profile, binary) == "verl":
        return parity.check_correctness(sandbox_fusion_url, in_outs, generation, timeout, memory_limit_mb, language,
                                        concurrent_semaphore)
    scored = judgebox_profile.judge_code(sandbox_fusion_url, concurrent_semaphore, memory_limit_mb, generation,
                                         in_outs, language, False, timeout, profile, binary)
    if not scored.total:
        return [-1], scored.metadata
    return [m["result"] for m in scored.metadata], scored.metadata


def default_compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                          sandbox_fusion_url: Target = None, concurrent_semaphore: Any = None,
                          memory_limit_mb: int | None = None, profile: str = "judgebox",
                          continuous: bool = True, timeout: float = DEFAULT_TIMEOUT, binary: bool = False,
                          **kwargs: Any) -> Any:
    """verl's ``default_compute_score``, usable as its ``custom_reward_function``.

    ``profile="judgebox"``: a code sample (a verl code data source, or any whose ground truth is test
    cases) gets a dict with the keys of ``RESULT_KEYS``; ``infra_error`` is True when the sandbox or the
    transport failed rather than the program. ``profile="verl"``: a float, as verl's own function returns.
    Other data sources go to verl's own ``default_compute_score`` (verl must be installed), the result
    put in the same shape.
    """
    profile = _profile(profile, binary)
    if profile == "verl":
        if data_source not in VERL_CODE_SOURCES:
            return _verl_default(data_source, solution_str, ground_truth, extra_info, sandbox_fusion_url,
                                 concurrent_semaphore, memory_limit_mb, **kwargs)
        return parity.compute_score(sandbox_fusion_url, concurrent_semaphore, memory_limit_mb or 1024, solution_str,
                                    ground_truth, continuous, timeout)[0]
    if data_source not in VERL_CODE_SOURCES and not _is_test_cases(ground_truth):
        other = _verl_default(data_source, solution_str, ground_truth, extra_info, sandbox_fusion_url,
                              concurrent_semaphore, memory_limit_mb, **kwargs)
        value = float(other["score"] if isinstance(other, dict) else other)
        return dict(zip(RESULT_KEYS, (value, value, 0, 0, "", False, "")))
    scored = judgebox_profile.score(sandbox_fusion_url, concurrent_semaphore, memory_limit_mb, solution_str,
                                    ground_truth, continuous, timeout, profile, binary)
    return {"score": scored.score, "acc": scored.score, "passed": scored.passed, "total": scored.total,
            "verdict": scored.verdict, "infra_error": scored.infra_error, "error": scored.error}


def _profile(profile: str, binary: bool) -> str:
    if profile not in PROFILES:
        raise UnknownPreset(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    if binary and profile == "verl":
        raise InvalidInput("binary is judgebox's option; profile='verl' scores as verl does")
    return profile


def _is_test_cases(ground_truth: Any) -> bool:
    if isinstance(ground_truth, (str, bytes)) and ground_truth.lstrip()[:1] in ("{", b"{"):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            return False
    return isinstance(ground_truth, dict) and ("assert_case" in ground_truth or "inputs" in ground_truth)


def _verl_default(data_source: str, *args: Any, **kwargs: Any) -> Any:
    try:
        from verl.utils.reward_score import default_compute_score as verl_default
    except ImportError:
        raise UnsupportedDataSource(f"data source {data_source!r} is not code (its ground truth is not test cases) "
                                    "and verl is not installed to score it") from None
    return verl_default(data_source, *args, **kwargs)
