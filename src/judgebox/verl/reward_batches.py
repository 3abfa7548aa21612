"""verl's reward arguments judged many at a time: the one place the batch, prime and reward-loop entry points
turn verl's calls into :mod:`judgebox.rewards` batches and the results back into what verl reads.

A code sample (a verl code data source, or any whose ground truth is test cases) judged by the embedded
judge goes through :func:`judgebox.rewards.score_batch` with the rest of its batch; on another
``sandbox_fusion_url`` (a ``judgebox serve``, several, Ray, a SandboxFusion server), or with
``profile="verl"``, or for other data sources (math...), each sample is scored by
:func:`judgebox.verl.default_compute_score`, concurrently. Either way the answer per sample is
``default_compute_score``'s: the dict of :data:`judgebox.verl.RESULT_KEYS` (a float for ``profile="verl"``),
``infra_error: True`` when the judge failed (then ``score`` is a 0.0 placeholder that must not be learned
from: :mod:`judgebox.verl.mask` takes such samples out of the update).
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from judgebox import rewards
from judgebox.errors import InvalidInput, UnknownPreset
from judgebox.types import JudgeResult, Limits
from judgebox.verl.parity import DEFAULT_TIMEOUT
from judgebox.verl.reward import (
    PROFILES,
    RESULT_KEYS,
    VERL_CODE_SOURCES,
    _is_test_cases,
    compute_score,
    default_compute_score,
)

NO_REWARD = math.nan  # a verl-profile sample the judge failed on: no reward (judgebox.verl.mask's mark)
JUDGE_FAILURES = frozenset({"api_error", "sandbox_error", "unknown_api_state"})  # verl's statuses of a failed judge
# verl's reward loop adds these when a reward model is configured; a code judge has no use for them
REWARD_MODEL_KEYS = frozenset({"reward_router_address", "reward_model_tokenizer"})
SAMPLE_THREADS = 64  # per process: samples scored one by one (remote judges, other data sources) at once


@dataclass(frozen=True)
class Options:
    """The ``reward_kwargs`` of verl's config, as every entry point takes them (unknown ones are refused)."""

    sandbox_fusion_url: Any = None
    concurrent_semaphore: Any = None  # honoured by remote judges; the embedded pool bounds its own work
    memory_limit_mb: int | None = None
    profile: str = "judgebox"
    continuous: bool = True
    timeout: float = DEFAULT_TIMEOUT
    binary: bool = False

    @classmethod
    def of(cls, kwargs: Mapping[str, Any]) -> Options:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(str(k) for k in kwargs if k not in known | REWARD_MODEL_KEYS)
        if unknown:
            raise InvalidInput(f"unknown reward option {unknown[0]!r}; known: {', '.join(sorted(known))}")
        options = cls(**{k: v for k, v in kwargs.items() if k in known})
        if options.profile not in PROFILES:
            raise UnknownPreset(f"profile must be one of {', '.join(PROFILES)}; got {options.profile!r}")
        return options

    @property
    def embedded(self) -> bool:
        """Whether code samples are judged here, in one batch (else one by one, as default_compute_score)."""
        return self.sandbox_fusion_url in (None, "local") and self.profile != "verl"

    def scoring(self) -> dict[str, Any]:
        """score_batch's and reward()'s options; the limits are default_compute_score's."""
        return {"preset": self.profile, "binary": self.binary, "continuous": self.continuous}

    def limits(self) -> Limits:
        return Limits(cpu_time=float(self.timeout), memory_mb=int(self.memory_limit_mb or 1024))

    def verl_kwargs(self) -> dict[str, Any]:
        return {"sandbox_fusion_url": self.sandbox_fusion_url, "concurrent_semaphore": self.concurrent_semaphore,
                "memory_limit_mb": self.memory_limit_mb, "profile": self.profile, "continuous": self.continuous,
                "timeout": self.timeout, "binary": self.binary}


@dataclass(frozen=True)
class Item:
    """One sample as verl hands it to a reward function."""

    data_source: str
    solution_str: str
    ground_truth: Any
    extra_info: Any = None

    @property
    def is_code(self) -> bool:
        return self.data_source in VERL_CODE_SOURCES or _is_test_cases(self.ground_truth)


def items(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
          extra_infos: Sequence[Any] | None) -> list[Item]:
    """verl's parallel lists (numpy arrays included) as items; lists of different lengths are refused."""
    extra = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    lengths = {len(data_sources), len(solution_strs), len(ground_truths), len(extra)}
    if len(lengths) != 1:
        raise InvalidInput("data_sources, solution_strs, ground_truths and extra_infos differ in length")
    return [Item(str(d), s, g, e) for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra)]


async def score(batch: list[Item], options: Options, judge: Any = None) -> list[Any]:
    """Each item's answer, in order: embedded code samples in one judgebox.rewards batch, the rest one by one."""
    answers: list[Any] = [None] * len(batch)
    batched = [i for i, item in enumerate(batch) if options.embedded and item.is_code]
    if batched:
        samples = [{"completion": batch[i].solution_str, "test_cases": batch[i].ground_truth} for i in batched]
        results = await rewards.score_batch(samples, judge=judge, limits=options.limits(), **options.scoring())
        for i, result in zip(batched, results):
            answers[i] = result_dict(result, options)
    single = [i for i in range(len(batch)) if answers[i] is None]
    if single:
        loop = asyncio.get_running_loop()
        done = await asyncio.gather(*(loop.run_in_executor(_threads(), functools.partial(
            _one_by_one, batch[i], options)) for i in single))
        for i, answer in zip(single, done):
            answers[i] = answer
        judged = [a for i, a in zip(single, done) if batch[i].is_code]
        if judged:  # counted as score_batch counts its own
            failed = [a["error"] if isinstance(a, dict) else "the judge failed (profile verl)" for a in judged
                      if (a["infra_error"] if isinstance(a, dict) else math.isnan(a))]
            missing = sum(1 for a in judged if isinstance(a, dict) and a["verdict"] == "invalid")
            rewards.record_batch(len(judged), len(failed), missing, failed[0] if failed else "")
    return answers


def _one_by_one(item: Item, options: Options) -> Any:
    """One sample as default_compute_score scores it. With ``profile="verl"`` a code sample is verl's float,
    but one the judge failed on (an API error or a sandbox error on any case, where verl's scorer says 0.0)
    is ``NO_REWARD``, NaN: the mark :mod:`judgebox.verl.mask` takes out of the update, as prime's."""
    if options.profile != "verl" or not item.is_code:
        return default_compute_score(item.data_source, item.solution_str, item.ground_truth, item.extra_info,
                                     **options.verl_kwargs())
    value, metadata = compute_score(options.sandbox_fusion_url, options.concurrent_semaphore,
                                    options.memory_limit_mb or 1024, item.solution_str, item.ground_truth,
                                    options.continuous, options.timeout, profile="verl")
    failed = any(isinstance(m, dict) and m.get("status") in JUDGE_FAILURES for m in metadata)
    return NO_REWARD if failed else float(value)


def score_sync(batch: list[Item], options: Options, judge: Any = None) -> list[Any]:
    """:func:`score` for verl's blocking callers (the batch and prime managers, which run no event loop)."""
    return _run(score(batch, options, judge))


def result_dict(result: JudgeResult, options: Options) -> dict[str, Any]:
    """A judged sample as default_compute_score answers it (the keys of RESULT_KEYS, scalar values)."""
    value = rewards.reward(result, **options.scoring())
    missing = rewards.no_code(result)
    infra = value is None
    score_ = 0.0 if value is None else float(value)
    return dict(zip(RESULT_KEYS, (score_, score_, result.passed, result.total,
                                  "invalid" if missing else str(result.verdict), infra,
                                  result.message if infra or missing else "")))


def _run(coroutine: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    # called from a thread whose loop is running: the batch gets a loop of its own in another thread
    with ThreadPoolExecutor(1, thread_name_prefix="judgebox-verl-batch") as worker:
        return worker.submit(asyncio.run, coroutine).result()


_executors: dict[int, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    """This process's threads for one-by-one scoring (a forked reward worker makes its own)."""
    with _lock:
        pid = os.getpid()
        if pid not in _executors:
            _executors[pid] = ThreadPoolExecutor(SAMPLE_THREADS, thread_name_prefix="judgebox-verl-sample")
        return _executors[pid]
