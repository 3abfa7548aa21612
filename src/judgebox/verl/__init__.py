"""judgebox as verl's code scorer: the functions of ``verl.utils.reward_score.sandbox_fusion``, faster,
sandboxed, and by default with correct rewards.

In a verl config (0.9.x), as the custom reward function::

    reward.custom_reward_function.path=pkg://judgebox.verl
    reward.custom_reward_function.name=default_compute_score
    # optional, each a key of default_compute_score:
    +reward.custom_reward_function.reward_kwargs.profile=judgebox           # or verl
    +reward.custom_reward_function.reward_kwargs.sandbox_fusion_url=judgebox://judge-host:8080
    +reward.custom_reward_function.reward_kwargs.memory_limit_mb=1024

verl 0.4 to 0.7 take other keys and a file path: ``judgebox verl-config --verl VERSION`` prints them
(:mod:`judgebox.verl.config`). verl's other reward interfaces each have their function:
``compute_score_batch`` (the ``batch`` reward manager, one call per step), ``prime_compute_score`` (the
``prime`` manager, a float per sample) and ``async_compute_score`` (the asynchronous reward loop);
:mod:`judgebox.verl.mask` keeps samples the judge failed on out of the update.

``sandbox_fusion_url`` picks where programs run: None or ``"local"`` (the default) is the embedded judge,
one sandbox pool per process shared by all reward threads; ``judgebox://host:port`` a ``judgebox serve``
(one /judge request per sample); ``http(s)://host:port/run_code`` any SandboxFusion-compatible server
(one request per case, keep-alive, retried on 429/502/503/504 and connection errors; a judgebox server
there is recognised by its /health and used through /judge).

``profile="judgebox"`` (default, :mod:`judgebox.verl.judgebox_profile`) gives correct rewards; ``profile="verl"``
(:mod:`judgebox.verl.parity`) gives verl 0.9.1's exact scores and statuses, its faults included.

The functions load on first use: ``import judgebox.verl`` loads judgebox's types and no more; looking a
function up (verl does, right after the import) loads the scorers, without the HTTP client or the server;
the first sample starts the sandbox; the HTTP client loads only for a server's ``sandbox_fusion_url``.
Parts are named by their absolute names, so verl can also load this module by file path.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgebox.verl.batch_manager import compute_score_batch
    from judgebox.verl.loop import async_compute_score
    from judgebox.verl.parity import SUPPORTED_LANGUAGES, _process_single_case, call_sandbox_api
    from judgebox.verl.prime import prime_compute_score
    from judgebox.verl.reward import PROFILES, RESULT_KEYS, check_correctness, compute_score, default_compute_score

__all__ = ["PROFILES", "RESULT_KEYS", "SUPPORTED_LANGUAGES", "_process_single_case", "async_compute_score",
           "call_sandbox_api", "check_correctness", "compute_score", "compute_score_batch", "default_compute_score",
           "prime_compute_score"]
_LAZY = {"compute_score_batch": "batch_manager", "async_compute_score": "loop", "SUPPORTED_LANGUAGES": "parity",
         "_process_single_case": "parity", "call_sandbox_api": "parity", "prime_compute_score": "prime",
         "PROFILES": "reward", "RESULT_KEYS": "reward", "check_correctness": "reward", "compute_score": "reward",
         "default_compute_score": "reward"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"judgebox.verl.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'judgebox.verl' has no attribute {name!r}")
