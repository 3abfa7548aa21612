"""verl's asynchronous reward loop (``verl/experimental/reward_loop``, the reward path of verl 0.9's trainer):
its reward managers check ``inspect.iscoroutinefunction(compute_score)`` and await it, one call per sample.

    reward.custom_reward_function.path=pkg://judgebox.verl
    reward.custom_reward_function.name=async_compute_score

The reward loop worker starts every sample of its share of the step at once, each awaiting its own call;
:func:`async_compute_score` gathers the calls that arrive together on one event loop (within
:data:`GATHER_SECONDS` of the first) into one :func:`judgebox.rewards.score_batch`, so a step is judged as
batches (one log line and one count each), not as thousands of lone samples. The answer per sample is
default_compute_score's dict; verl's NaiveRewardManager takes its ``score`` as the reward and every key into
``reward_extra_info``, which the trainer puts in the batch (``infra_error`` there is what
:mod:`judgebox.verl.mask` reads).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from judgebox.verl.reward_batches import Item, Options, score

# verl's reward loop decodes each sample's tokens in a thread before calling: the calls of one step arrive
# within milliseconds of each other, and a judgement takes far longer than this wait
GATHER_SECONDS = 0.02


async def async_compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                              **options: Any) -> Any:
    """One sample's answer (default_compute_score's dict), judged with the samples awaited beside it.
    ``options``: default_compute_score's (``profile``, ``binary``, ``timeout``, ``sandbox_fusion_url``...)."""
    settings = Options.of(options)
    return await _gather_for(settings).add(Item(data_source, solution_str, ground_truth, extra_info))


class _Gather:
    """The calls with the same options on one event loop, waiting to be judged as one batch."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.waiting: list[tuple[Item, asyncio.Future[Any]]] = []
        self.running: set[asyncio.Task[None]] = set()  # held: the loop keeps only weak references to tasks

    def add(self, item: Item) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        self.waiting.append((item, answer))
        if len(self.waiting) == 1:
            loop.call_later(GATHER_SECONDS, self._start)
        return answer

    def _start(self) -> None:
        batch, self.waiting = self.waiting, []
        task = asyncio.get_running_loop().create_task(self._judge(batch))
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def _judge(self, batch: list[tuple[Item, asyncio.Future[Any]]]) -> None:
        try:
            answers = await score([item for item, _ in batch], self.options)
        except Exception as exc:  # a caller's mistake or a config error: every caller of the batch hears it
            for _, answer in batch:
                if not answer.done():
                    answer.set_exception(exc)
            return
        for (_, answer), value in zip(batch, answers):
            if not answer.done():  # its caller may have been cancelled meanwhile
                answer.set_result(value)


_gathers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[_Gather]] = weakref.WeakKeyDictionary()


def _gather_for(options: Options) -> _Gather:
    """The running loop's gather for these options (options hold lists and proxies: compared, not hashed)."""
    gathers = _gathers.setdefault(asyncio.get_running_loop(), [])
    for gather in gathers:
        if gather.options == options:
            return gather
    gathers.append(_Gather(options))
    return gathers[-1]
