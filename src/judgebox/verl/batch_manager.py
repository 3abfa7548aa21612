"""verl's ``batch`` reward manager (verl 0.4 to 0.7's trainer; ``judgebox verl-config --verl 0.6 --interface
batch`` prints its lines): one call per step with every sample, judged in one batch.

verl's BatchRewardManager reads each answer's ``score`` as the reward and carries every key into
``reward_extra_info`` (so ``infra_error`` reaches the trainer's batch, where :mod:`judgebox.verl.mask` finds it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judgebox.verl.reward_batches import Options, items, score_sync


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, **options: Any) -> list[Any]:
    """One answer per sample, in order, as :func:`judgebox.verl.default_compute_score` answers one (a dict of
    RESULT_KEYS; ``infra_error`` marks a sample the judge failed on). ``options``: default_compute_score's
    (``profile``, ``binary``, ``continuous``, ``timeout``, ``memory_limit_mb``, ``sandbox_fusion_url``,
    ``concurrent_semaphore``); any other is refused."""
    return score_sync(items(data_sources, solution_strs, ground_truths, extra_infos), Options.of(options))
