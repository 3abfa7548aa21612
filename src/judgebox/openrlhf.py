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
``judgebox_all_passed``, ``judgebox_no_code`` and ``judgebox_no_reward`` (OpenRLHF logs extra_logs with its
metrics).

**A sample the judge failed on (SE).** SE is only what the judge itself saw fail (a checker that fails on
the jury's answer too, a checker or interactor that does not compile, the sandbox's failure): a wrong
program cannot make one (:mod:`judgebox.checkers.programs`, :mod:`judgebox.judging.interactive`). One such sample
never withholds the other samples' rewards. What OpenRLHF 0.11.2 does with an answer decides the rest:

- its executor (``openrlhf/utils/agent.py``, ``SingleTurnAgentExecutor.execute``) posts one query per
  request and keeps the answer's ``rewards``, ``scores`` and ``extra_logs`` as they are; a failed request
  is retried 5 times, 1 s apart (``_post_request``), then the sample's reward is None;
- ``trainer/ppo_utils/samples_generator.py`` makes ``torch.tensor([reward])`` of the reward and of every
  extra_logs value (a None in a list is a TypeError there), and ``experience_maker.py`` takes a None reward
  for "no rewards: ask the reward model" (an error without one) or fails at ``torch.cat``: the trainer stops;
- ``compute_advantages_and_returns`` normalises each prompt group's rewards (mean, std) and whitens the
  advantages of the batch: a NaN would make the whole group's (or batch's) advantages NaN. There is no
  per-sample mask: extra_logs are only logged.

So the only per-sample value OpenRLHF takes is a finite number. A sample the judge failed on is judged
once more within the request (an SE result is never kept by the result cache, so a passing failure, a
worker killed, costs one more judging); if it fails again its reward and score are ``0.0``
(:data:`NO_REWARD`), the floor of every scale here and what a failing program earns, so provoking a judge
failure never pays, and it is flagged: ``judgebox_no_reward`` is 1.0 for it in extra_logs (OpenRLHF logs
the batch's mean with its metrics), it is counted (once in the server's
``judgebox_reward_samples_total{outcome="no_reward"}``; each judging in :func:`judgebox.rewards.stats`) and
logged with the reason and the request id. A problem whose case is broken thus scores 0 for every sample
of its group: no advantage under a group baseline, and outside OpenRLHF's default dynamic filtering range
(an average strictly between 0 and 1).

Only when every sample of the request is SE before any of its cases was judged (the judge itself is down:
an exception, a closed pool; or, rarer, test data that loads but cannot make a submission) is the request
answered ``503`` (``Retry-After: 1``): OpenRLHF's own handling of a failed reward server (its retries,
then no reward and a stopped trainer) rather than zeros from a judge that judged nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judgebox import presets, rewards
from judgebox.errors import InvalidInput, JudgeboxError
from judgebox.judging.cases import load_problem
from judgebox.types import JudgeResult
from judgebox.wire.schemas import RewardModelAnswer, RewardModelRequest

__all__ = ["KEPT_CHARS", "NO_REWARD", "RETRIES", "SETTINGS", "Outcome", "response_text", "score", "settings"]

SETTINGS = ("preset", "binary")  # the URL's query parameters
NO_REWARD = 0.0  # the reward and score of a sample the judge failed on twice (flagged in extra_logs)
RETRIES = 1  # a sample the judge failed on is judged this many more times within the request
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
    """A request's answer (None: the judge judged none of its samples' cases), the samples the judge failed
    on (index, reason: each given :data:`NO_REWARD` in the answer), the samples without code, and how many
    judgings were retried."""

    answer: RewardModelAnswer | None
    failed: tuple[tuple[int, str], ...] = ()
    no_code: int = 0
    retried: int = 0


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


def _samples(body: RewardModelRequest) -> list[dict[str, Any]]:
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
    """Judge every sample of the request in one batch (those the judge failed on once more): every reward
    it could compute, :data:`NO_REWARD` and a flag for the others; no answer only when the judge judged no
    case of any sample."""
    made = _samples(body)
    options = {"judge": judge, "preset": preset, "binary": binary}
    results = await rewards.score_batch(made, **options)
    retried = 0
    for _ in range(RETRIES):
        again = [i for i, result in enumerate(results) if rewards.is_system_error(result)]
        if not again:
            break
        retried += len(again)
        for i, result in zip(again, await rewards.score_batch([made[i] for i in again], **options)):
            results[i] = result
    scored = [rewards.reward(r, preset=preset, binary=binary) for r in results]
    no_code = sum(rewards.no_code(r) for r in results)
    failed = tuple((i, _reason(r)) for i, (r, s) in enumerate(zip(results, scored)) if s is None)
    if len(failed) == len(results) and not any(r.cases for r in results):  # the judge itself is down
        return Outcome(None, failed, no_code, retried)
    values = [NO_REWARD if s is None else float(s) for s in scored]
    logs = {"judgebox_all_passed": [float(_all_passed(r)) for r in results],
            "judgebox_no_code": [float(rewards.no_code(r)) for r in results],
            "judgebox_no_reward": [float(s is None) for s in scored]}
    return Outcome(RewardModelAnswer(rewards=values, scores=values, extra_logs=logs), failed, no_code, retried)


def _all_passed(result: JudgeResult) -> bool:
    return result.total > 0 and all(case.passed for case in result.cases) and len(result.cases) == result.total


def _reason(result: JudgeResult) -> str:
    if result.message:
        return result.message
    case = next((c for c in result.cases if str(c.verdict) == "SE"), None)
    return case.message if case is not None and case.message else "the judge failed"
