"""judgebox as a reward function of TRL's ``GRPOTrainer`` (``reward_funcs=``).

    from trl import GRPOConfig, GRPOTrainer
    import judgebox.trl

    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), train_dataset=dataset,   # a "test_cases" column
                          reward_funcs=judgebox.trl.reward_function())               # or async_reward_function()

TRL calls a reward function once per step with every completion of the step and every dataset column as
a keyword (``prompts=``, ``completions=``, ``completion_ids=``, ``trainer_state=``, ``log_metric=``, ...).
Here all the step's completions are judged in one batch (:func:`judgebox.rewards.score_batch`), each on
the test cases of its row's ``test_cases_column`` (verl's test-case dict, or its JSON text). A completion
is the model's text, or, for a conversational dataset, its messages: the program is taken from the last
assistant message, as :mod:`judgebox.verl` takes it from a completion (the final fenced block after any
``<think>``).

A sample whose judging failed (SE: the judge, not the program) gets ``None``: TRL turns None into NaN,
leaves it out of the group's mean and std, and gives the completion no advantage (and warns when every
reward function returned None for it); it is never scored 0. Each call counts such samples into TRL's
logged metrics through ``log_metric`` (``judgebox/no_reward``, ``judgebox/no_code``: per step, beside
``reward``), tags every completion's verdict in TRL's completions table (``log_extra``), and
:mod:`judgebox.rewards` logs the batch and keeps the totals in :func:`judgebox.rewards.stats`.

The functions hold only their settings (they pickle); the judge is the process-wide embedded one unless
one is given (``judge=``: a :class:`judgebox.Judge`, a Ray judge, anything with ``judge_submission``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judgebox import presets, rewards
from judgebox.errors import InvalidInput, JudgeboxError
from judgebox.judging.cases import load_problem
from judgebox.types import JudgeResult, Limits

__all__ = ["AsyncRewardFunction", "RewardFunction", "async_reward_function", "completion_text", "reward_function"]


class RewardFunction:
    """A TRL reward function: ``(prompts, completions, **columns) -> list[float | None]``.

    ``__name__`` is what TRL logs the rewards under (``rewards/<name>/mean``)."""

    def __init__(self, test_cases_column: str = "test_cases", *, language: str | None = None,
                 preset: str = "judgebox", binary: bool = False, continuous: bool = True,
                 limits: Limits | None = None, judge: Any = None, name: str = "judgebox") -> None:
        if not isinstance(test_cases_column, str) or not test_cases_column:
            raise InvalidInput(f"test_cases_column must be a column name, got {test_cases_column!r}")
        if language is not None and not isinstance(language, str):
            raise InvalidInput(f"language must be a name or None, got {type(language).__name__}")
        presets.get(preset).reward(continuous, binary)  # an unknown preset or setting fails here, not mid-training
        self.test_cases_column = test_cases_column
        self.language = language
        self.preset, self.binary, self.continuous = preset, binary, continuous
        self.limits = limits
        self.judge = judge
        self.__name__ = name

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float | None]:
        results = rewards.score_batch_sync(self._samples(completions, columns), **self._options())
        return self._rewards(results, columns)

    def _options(self) -> dict[str, Any]:
        return {"judge": self.judge, "preset": self.preset, "binary": self.binary, "continuous": self.continuous,
                "limits": self.limits}

    def _samples(self, completions: Sequence[Any], columns: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One judgebox.rewards sample per completion: its text and its row's test cases."""
        if self.test_cases_column not in columns:
            present = sorted(key for key in columns if key not in _TRL_KEYWORDS)
            raise InvalidInput(f"the dataset has no {self.test_cases_column!r} column (the test cases); its columns: "
                               f"{', '.join(present) or 'none'}")
        tests = columns[self.test_cases_column]
        if isinstance(tests, (str, bytes, Mapping)) or len(tests) != len(completions):
            raise InvalidInput(f"column {self.test_cases_column!r} must hold one value per completion "
                               f"({len(completions)})")
        self._check_column_holds_test_data(tests)
        samples = []
        for completion, test_cases in zip(completions, tests):
            sample: dict[str, Any] = {"completion": completion_text(completion), "test_cases": test_cases}
            if self.language is not None:
                sample["language"] = self.language
            samples.append(sample)
        return samples

    def _check_column_holds_test_data(self, tests: Sequence[Any]) -> None:
        """A column none of whose rows is test data is a mis-mapped column (a training run with no reward
        signal): an error at the first batch. A batch with some readable rows goes on, its bad rows SE
        (None). The rows are read up to the first readable one, most often only the first."""
        first_error = None
        for test_cases in tests:
            try:
                load_problem(test_cases)
                return
            except (JudgeboxError, TypeError, ValueError) as exc:
                first_error = first_error or exc
        if first_error is not None:
            raise InvalidInput(f"column {self.test_cases_column!r} holds no test data judgebox can read (its first "
                               f"row: {first_error}); name the test-case column with test_cases_column=")

    def _rewards(self, results: list[JudgeResult], columns: Mapping[str, Any]) -> list[float | None]:
        """Each result's reward (None: the judge failed), counted into TRL's metrics and completions table."""
        scored = [rewards.reward(r, preset=self.preset, binary=self.binary, continuous=self.continuous)
                  for r in results]
        log_metric, log_extra = columns.get("log_metric"), columns.get("log_extra")
        if callable(log_metric):  # TRL >= 1.x: averaged per logging step beside its own metrics
            log_metric("judgebox/no_reward", float(sum(s is None for s in scored)))
            log_metric("judgebox/no_code", float(sum(rewards.no_code(r) for r in results)))
        if callable(log_extra):
            log_extra(f"{self.__name__}_verdict", [str(r.verdict) for r in results])
        return scored


class AsyncRewardFunction(RewardFunction):
    """The async twin: TRL (``is_async_callable``) awaits it on its own event loop thread, beside its other
    async reward functions, so the judging waits without holding a thread."""

    async def __call__(self, prompts: Sequence[Any], completions: Sequence[Any],  # type: ignore[override]
                       **columns: Any) -> list[float | None]:
        results = await rewards.score_batch(self._samples(completions, columns), **self._options())
        return self._rewards(results, columns)


def reward_function(test_cases_column: str = "test_cases", **options: Any) -> RewardFunction:
    """A synchronous TRL reward function judging each completion on its row's test cases.

    Options: ``language`` (None: the test data's own, else Python), ``preset`` (:mod:`judgebox.presets`),
    ``binary`` (all or nothing), ``continuous``, ``limits`` (a :class:`judgebox.Limits`; the test data's
    own time and memory limits win), ``judge`` (None: the process-wide embedded judge), ``name``."""
    return RewardFunction(test_cases_column, **options)


def async_reward_function(test_cases_column: str = "test_cases", **options: Any) -> AsyncRewardFunction:
    """The same as :func:`reward_function`, as a coroutine function."""
    return AsyncRewardFunction(test_cases_column, **options)


def completion_text(completion: Any) -> str:
    """A TRL completion's text: the string itself, or the content of the last assistant message of a
    conversational completion (TRL's ``[{"role": "assistant", "content": ...}]``, tool turns before it)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        replies = [m for m in completion if isinstance(m, Mapping) and m.get("role") == "assistant"]
        if replies:
            return _content_text(replies[-1].get("content"))
        raise InvalidInput("a conversational completion must hold an assistant message")
    raise InvalidInput(f"a completion must be text or a list of messages, got {type(completion).__name__}")


def _content_text(content: Any) -> str:
    """A message's content: text, nothing, or content blocks (``{"type": "text", "text": ...}`` are kept)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and all(isinstance(block, Mapping) for block in content):
        return "".join(str(block.get("text", "")) for block in content if block.get("type") == "text")
    raise InvalidInput(f"a message's content must be text or content blocks, got {type(content).__name__}")


# What TRL passes beside the dataset's columns (not named as columns when one is missing).
_TRL_KEYWORDS = frozenset({"completion_ids", "trainer_state", "log_extra", "log_metric", "environments"})
