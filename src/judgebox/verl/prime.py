"""verl's ``prime`` reward manager (verl 0.4 to 0.7's trainer; ``judgebox verl-config --verl 0.6 --interface
prime`` prints its lines).

What prime does with a reward function (verl 0.9.1, ``verl/workers/reward_manager/prime.py``): it calls
``compute_score(data_source, solution_str, ground_truth, extra_info)`` positionally, in a
ProcessPoolExecutor of 64 processes (forked, ended after every step), each call bounded by 300 s; it keeps
``float(answer)`` of a number, else ``float(answer[0])`` (judgebox's dict there is ``KeyError: 0``), and turns
an exception, a None and a timeout alike into 0.0. It keeps nothing else: no extra info reaches the trainer.

So an SE sample must not raise and must not be a number that reads as earned. :func:`prime_compute_score`
answers it with ``NaN`` (:data:`NO_REWARD`), which prime passes through ``float()`` into the reward tensor;
:mod:`judgebox.verl.mask` takes every sample whose reward is not finite out of the advantage and the loss
(and puts 0 in its place, so no NaN reaches a metric). Without the mask a NaN would poison its group's
advantages: pass ``no_reward=0.0`` to accept zeros for judge failures knowingly (they are still counted
and logged). Keep a sample's judging well under prime's 300 s (prime scores a timed-out sample 0.0): its
processes share the machine, each judging embedded with one sandbox slot, or all of them sending to a
``judgebox serve`` (``sandbox_fusion_url``).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from typing import TYPE_CHECKING, Any

from judgebox import judging
from judgebox.verl import reward_batches as batched
from judgebox.verl.reward_batches import Item, Options, score_sync

if TYPE_CHECKING:
    from judgebox.judging.judge import Judge

NO_REWARD = batched.NO_REWARD  # prime keeps only a number: NaN says "the judge failed, no reward"
_judges: dict[int, Judge] = {}
_lock = threading.Lock()


def prime_compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                        no_reward: float = NO_REWARD, **options: Any) -> float:
    """One sample's reward as a float (prime's contract): the score, or ``no_reward`` when the judge failed.
    ``options``: default_compute_score's (``profile``, ``binary``, ``timeout``, ...)."""
    (answer,) = score_sync([Item(data_source, solution_str, ground_truth, extra_info)], Options.of(options),
                           judge=_judge())
    if isinstance(answer, dict):
        return float(no_reward) if answer["infra_error"] else float(answer["score"])
    return float(no_reward) if math.isnan(answer) else float(answer)  # profile "verl": NaN is a judge failure


def _judge() -> Judge | None:
    """In one of prime's pool processes a judge of one slot of its own (64 of them share the machine, and a
    judge inherited through fork has no threads left); elsewhere the process-wide judge (None)."""
    if multiprocessing.parent_process() is None:
        return None
    pid = os.getpid()
    with _lock:
        if pid not in _judges:
            # $JUDGEBOX_SLOTS, if set, per process
            _judges[pid] = judging.Judge(slots=judging.slots_from_environment() or 1)
        return _judges[pid]
