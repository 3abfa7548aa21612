"""No reward for a sample the judge failed on, in verl's trainer.

verl 0.9.1 has no per-sample "no reward" for a rule-based reward: its reward managers put one number per
sample into the reward tensor (the ``score``; prime, and a failing or timed-out call, 0.0), and the trainer
carries the rest of a reward function's dict (``reward_extra_info``) into the batch's ``non_tensor_batch``
only for logs, dumps and DAPO's group filter. So judgebox marks the sample, and this module takes marked
samples out of the update where the trainer computes advantages (``compute_advantage`` of
``verl.trainer.ppo.ray_trainer``, which every advantage estimator goes through):

- marked: ``infra_error`` True in the batch (the dict of ``default_compute_score``,
  ``compute_score_batch`` and ``async_compute_score`` carries it), or a reward that is not finite
  (``prime_compute_score``'s NaN: prime keeps only a number);
- the advantage is computed on the other samples alone (a GRPO group's mean and spread without the failed
  sample's placeholder), the marked samples get advantage and return 0 and an all-zero ``response_mask``
  (none of their tokens enters the loss), and their rewards are set to 0 so no NaN reaches a metric;
- each batch with marked samples is logged (logger ``judgebox.verl.mask``) and counted in :func:`stats`.

Install it in every process of the run, before the trainer starts; with verl's ``main_ppo`` (it runs the
trainer in a Ray actor) through Ray's worker setup hook, one line of config::

    +ray_kwargs.ray_init.runtime_env.worker_process_setup_hook=judgebox.verl.mask.install

or, in your own entry point, ``judgebox.verl.mask.install()`` before ``RayPPOTrainer.fit()``.
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

from judgebox.errors import InvalidInput

log = logging.getLogger("judgebox.verl.mask")
REWARD_KEYS = ("token_level_scores", "token_level_rewards", "rm_scores", "acc")  # zeroed for a failed sample
_counts = {"batches": 0, "samples_masked": 0}
_lock = threading.Lock()


def install() -> bool:
    """Wrap verl's ``compute_advantage`` (and every verl module's imported copy of it) with
    :func:`masked_compute_advantage`; idempotent. False (and a log line) where verl's trainer is not
    importable, so the hook is harmless in a Ray worker without verl."""
    try:
        from verl.trainer.ppo import ray_trainer
    except ImportError as exc:
        log.info("judgebox.verl.mask: verl's trainer is not importable here (%s); nothing installed", exc)
        return False
    original = ray_trainer.compute_advantage
    if getattr(original, "judgebox_masked", False):
        return True
    patched = masked_compute_advantage(original)
    for name, module in list(sys.modules.items()):
        if name.startswith("verl.") and getattr(module, "compute_advantage", None) is original:
            # modules that did `from ... import compute_advantage`; a module's attributes are untyped
            module.compute_advantage = patched  # type: ignore[attr-defined]
    return True


def masked_compute_advantage(compute_advantage: Callable[..., Any]) -> Callable[..., Any]:
    """verl's ``compute_advantage(data, ...)``, with the samples the judge failed on out of the update."""

    @functools.wraps(compute_advantage)
    def masked(data: Any, *args: Any, **kwargs: Any) -> Any:
        import numpy as np
        import torch

        failed = failed_samples(data)
        if not failed.any():
            return compute_advantage(data, *args, **kwargs)
        rows = torch.from_numpy(failed)
        for key in REWARD_KEYS:
            if key in data.batch.keys():
                data.batch[key][rows] = 0
        kept = np.flatnonzero(~failed)
        advantages = torch.zeros_like(data.batch["token_level_rewards"])
        returns = torch.zeros_like(advantages)
        if kept.size:
            judged = compute_advantage(data[kept], *args, **kwargs)
            if len(judged) != kept.size:
                raise InvalidInput("the advantage estimator resampled the batch (pf_ppo): judgebox cannot mask it")
            index = torch.from_numpy(kept)
            advantages[index] = judged.batch["advantages"].to(advantages.dtype)
            returns[index] = judged.batch["returns"].to(returns.dtype)
        if "response_mask" not in data.batch.keys():
            data.batch["response_mask"] = _response_mask(data)
        data.batch["response_mask"][rows] = 0
        data.batch["advantages"], data.batch["returns"] = advantages, returns
        _count(int(failed.sum()), len(failed))
        return data

    masked.judgebox_masked = True  # type: ignore[attr-defined]
    return masked


def failed_samples(data: Any) -> Any:
    """A boolean array: the samples whose reward the judge could not give (``infra_error`` or a reward that
    is not finite)."""
    import numpy as np
    import torch

    failed = np.zeros(len(data), dtype=bool)
    marked = data.non_tensor_batch.get("infra_error")
    if marked is not None:
        failed |= np.array([bool(m) for m in marked], dtype=bool)
    for key in ("token_level_scores", "token_level_rewards"):
        if key in data.batch.keys():
            failed |= (~torch.isfinite(data.batch[key]).all(dim=-1)).cpu().numpy()
    return failed


def stats() -> dict[str, int]:
    """``batches`` with masked samples and ``samples_masked``, since the process started."""
    with _lock:
        return dict(_counts)


def _count(masked: int, total: int) -> None:
    with _lock:
        _counts["batches"] += 1
        _counts["samples_masked"] += masked
    log.warning("judgebox: %d of %d samples had no reward (the judge failed): out of this update", masked, total)


def _response_mask(data: Any) -> Any:
    length = data.batch["responses"].size(1)
    return data.batch["attention_mask"][:, -length:].clone()
