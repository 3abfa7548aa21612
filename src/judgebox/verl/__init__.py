"""judgebox as verl's code scorer: the functions of ``verl.utils.reward_score.sandbox_fusion``, faster,
sandboxed, and by default with correct rewards.

In a verl config (0.9.x), as the custom reward function::

    reward.custom_reward_function.path=pkg://judgebox.verl
    reward.custom_reward_function.name=default_compute_score
    # optional, each a key of default_compute_score:
    +reward.custom_reward_function.reward_kwargs.profile=judgebox           # or verl
    +reward.custom_reward_function.reward_kwargs.sandbox_fusion_url=judgebox://judge-host:8080
    +reward.custom_reward_function.reward_kwargs.memory_limit_mb=1024

Older verl takes a file path instead of ``pkg://``: ``judgebox verl-config`` prints both. verl's other reward
interfaces each have their function: ``compute_score_batch`` (the ``batch`` reward manager, one call per
step), ``prime_compute_score`` (the ``prime`` manager, a float per sample) and ``async_compute_score`` (the
asynchronous reward loop); :mod:`judgebox.verl.mask` keeps samples the judge failed on out of the update.

``sandbox_fusion_url`` picks where programs run: None or ``"local"`` (the default) is the embedded judge,
one sandbox pool per process shared by all reward threads; ``judgebox://host:port`` a ``judgebox serve``
(one /judge request per sample); ``http(s)://host:port/run_code`` any SandboxFusion-compatible server
(one request per case, keep-alive, retried on 429/502/503/504 and connection errors; a judgebox server
there is recognised by its /health and used through /judge).

``profile="judgebox"`` (default, :mod:`judgebox.verl.scoring`) gives correct rewards; ``profile="verl"``
(:mod:`judgebox.verl.parity`) gives verl 0.9.1's exact scores and statuses, its faults included.

This module uses absolute imports so that verl can also load it by file path.
"""

from judgebox.verl.batch import compute_score_batch
from judgebox.verl.loop import async_compute_score
from judgebox.verl.parity import SUPPORTED_LANGUAGES, _process_single_case, call_sandbox_api
from judgebox.verl.prime import prime_compute_score
from judgebox.verl.reward import PROFILES, RESULT_KEYS, check_correctness, compute_score, default_compute_score

__all__ = ["PROFILES", "RESULT_KEYS", "SUPPORTED_LANGUAGES", "_process_single_case", "async_compute_score",
           "call_sandbox_api", "check_correctness", "compute_score", "compute_score_batch", "default_compute_score",
           "prime_compute_score"]
