"""judgebox as OpenRLHF's remote reward model: ``judgebox serve`` answers ``POST /openrlhf/reward``.

    judgebox serve --host 0.0.0.0 --port 8080
    python -m openrlhf.cli.train_ppo_ray ... --remote_rm_url http://judge-host:8080/openrlhf/reward \\
        --label_key test_cases            # the dataset column holding each prompt's test cases

OpenRLHF (0.11: ``openrlhf/utils/agent.py``) posts ``{"query": [...], "prompts": [...], "labels": [...]}``
per rollout, where a query is the prompt's and the response's tokens decoded together (special tokens
kept), the prompt is the text it gave the model, and the label is the ``--label_key`` column: here, the
problem's test cases in verl's form (``{"inputs": [...], "outputs": [...]}``, ``fn_name``, ``assert_case``,
the problem's own checker and limits), as an object or its JSON text. The response is what follows the
prompt in the query, or after what OpenRLHF kept of a prompt too long for its budget (its end: a query
that begins with neither is refused, 422), less the end-of-sequence markers the decode leaves at its end
(``<|im_end|>``, ``</s>``...); its program is taken as
:mod:`judgebox.verl` takes it (the final fenced block after any ``<think>``). Settings ride on the URL's
query string, one trainer's choice each: ``?preset=prime`` (:mod:`judgebox.presets`), ``?binary=true``
(all or nothing); any other parameter is refused.

The answer is ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``: the reward of each sample, the
same as its score (what OpenRLHF's dynamic filtering averages per prompt group), and per sample
``judgebox_all_passed`` and ``judgebox_no_code`` (OpenRLHF logs extra_logs with its metrics).

**A sample the judge failed on (SE).** OpenRLHF has no "no reward" value in an answer: whatever number
comes back is trained on. So a request with any SE sample is answered ``503`` (``Retry-After: 1``), never
a made-up reward. OpenRLHF's request function retries a failed request 5 times, 1 s apart, and each retry
is judged afresh (an SE result is never kept by judgebox's result cache), so a passing failure (a worker
killed) costs a retry. When it persists, OpenRLHF gives up on the sample: it logs the failure, the sample
gets no reward (None), and its trainer stops with an error when it makes the batch's experience, rather
than learn from an invented 0. Every such sample is counted (the server's
``judgebox_reward_samples_total{outcome="no_reward"}``, :func:`judgebox.rewards.stats`) and logged with
the reason and the request id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import presets, rewards
from .cases import load_problem
from .errors import InvalidInput, JudgeboxError
from .server.schemas import RewardModelAnswer, RewardModelRequest
from .types import JudgeResult

__all__ = ["SETTINGS", "Outcome", "response_text", "score", "settings"]

SETTINGS = ("preset", "binary")  # the URL's query parameters
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")
# End-of-sequence markers a decode with special tokens kept leaves after the response: <|im_end|>,
# <|endoftext|>, <|eot_id|>, </s>, DeepSeek's <｜end▁of▁sentence｜>.
_END_MARKER = re.compile(r"(?:<\|[^<>|\s]{1,64}\|>|</s>|<｜[^<>｜\s]{1,64}｜>)\Z")
_MARKER_CHARS = 68  # the longest marker: a search for one looks only this far back
# What must be left of a truncated prompt to find the response after it: a truncation keeps the prompt's
# budget of tokens (hundreds), while an unrelated query meeting the prompt's end by chance shares a few
# characters, and taking the whole query as the response would judge the prompt's own code blocks.
KEPT_CHARS = 32


@dataclass(frozen=True)
class Outcome:
    """A request's answer, or why there is none: the samples the judge failed on (index, reason)."""

    answer: RewardModelAnswer | None
    failed: tuple[tuple[int, str], ...] = ()
    no_code: int = 0


def settings(query_parameters: Mapping[str, str]) -> tuple[str, bool]:
    """``(preset, binary)`` from the URL's query string; an unknown parameter or value is InvalidInput."""
    unknown = sorted(key for key in query_parameters if key not in SETTINGS)
    if unknown:
        raise InvalidInput(f"unknown query parameter {unknown[0]!r}; known: {', '.join(SETTINGS)}")
    preset = query_parameters.get("preset", "judgebox")
    presets.get(preset)
    binary = query_parameters.get("binary", "false").lower()
    if binary not in _TRUE + _FALSE:
        raise InvalidInput(f"binary must be true or false, got {binary!r}")
    presets.get(preset).reward(True, binary in _TRUE)  # a setting the preset cannot take fails here
    return preset, binary in _TRUE


def response_text(query: str, prompt: str) -> str | None:
    """The response in an OpenRLHF query: what follows the prompt, less the trailing end-of-sequence
    markers; None when the query does not begin with the prompt (whitespace at the very start aside) or,
    for a prompt OpenRLHF truncated, with at least ``KEPT_CHARS`` of its end."""
    if query.startswith(prompt):
        rest = query[len(prompt):]
    elif query.lstrip().startswith(prompt.lstrip()):
        rest = query.lstrip()[len(prompt.lstrip()):]
    elif (kept := _kept_end(query, prompt)) >= KEPT_CHARS:
        rest = query[kept:]
    else:
        return None
    return _without_end_markers(rest)


def _kept_end(query: str, prompt: str) -> int:
    """How long a start of ``query`` is an end of ``prompt``, the longest: OpenRLHF cuts a prompt longer than
    its budget to its last tokens, and the query is their decode and the response's."""
    head = query[:KEPT_CHARS]
    start = prompt.find(head, max(0, len(prompt) - len(query)))
    while start != -1:  # the leftmost place whose whole rest of the prompt starts the query is the longest
        if query.startswith(prompt[start:]):
            return len(prompt) - start
        start = prompt.find(head, start + 1)
    return 0


def _without_end_markers(text: str) -> str:
    """The text less its trailing markers and the whitespace around them, in one backward pass (a
    generation can end in megabytes of whitespace: no regex backtracks over it)."""
    end = len(text.rstrip())  # the common long run, at the very end: in C
    while True:
        while end and text[end - 1].isspace():
            end -= 1
        marker = _END_MARKER.search(text, max(0, end - _MARKER_CHARS), end)
        if marker is None:
            return text[:end]
        end = marker.start()


def samples(body: RewardModelRequest) -> list[dict[str, Any]]:
    """judgebox.rewards samples of the request; a query without its prompt, or a label that is not test
    data, is the caller's mistake (InvalidInput, naming the sample): nothing is judged."""
    made = []
    for index, (query, prompt, label) in enumerate(zip(body.query, body.prompts, body.labels)):
        response = response_text(query, prompt)
        if response is None:
            raise InvalidInput(f"sample {index}: the query does not begin with its prompt, so the response "
                               "cannot be told from it")
        try:
            load_problem(label)
        except JudgeboxError as exc:
            raise InvalidInput(f"sample {index}: the label is not test cases judgebox can use: {exc}") from None
        made.append({"completion": response, "test_cases": label})
    return made


async def score(body: RewardModelRequest, judge: Any, preset: str = "judgebox", binary: bool = False) -> Outcome:
    """Judge every sample of the request in one batch: the answer, or the samples the judge failed on."""
    results = await rewards.score_batch(samples(body), judge=judge, preset=preset, binary=binary)
    scored = [rewards.reward(r, preset=preset, binary=binary) for r in results]
    no_code = sum(rewards.no_code(r) for r in results)
    failed = tuple((i, _reason(r)) for i, (r, s) in enumerate(zip(results, scored)) if s is None)
    if failed:
        return Outcome(None, failed, no_code)
    values = [float(s) for s in scored if s is not None]
    logs = {"judgebox_all_passed": [float(_all_passed(r)) for r in results],
            "judgebox_no_code": [float(rewards.no_code(r)) for r in results]}
    return Outcome(RewardModelAnswer(rewards=values, scores=values, extra_logs=logs), (), no_code)


def _all_passed(result: JudgeResult) -> bool:
    return result.total > 0 and all(case.passed for case in result.cases) and len(result.cases) == result.total


def _reason(result: JudgeResult) -> str:
    if result.message:
        return result.message
    case = next((c for c in result.cases if str(c.verdict) == "SE"), None)
    return case.message if case is not None and case.message else "the judge failed"
