"""``judgebox verl-config``'s lines, each proved by that verl version's own code from its wheel (0.9.1 for verl 0.8
and later, 0.6.1 for 0.4 to 0.7): Hydra composes the version's ppo_trainer.yaml with the printed lines as a shell
passes them (a key that config lacks is refused there), then verl's load_reward_manager, as its trainer calls
it, looks the reward manager up in its registry and loads judgebox's function (``pkg://`` or the file path)
with the printed reward_kwargs.

verl is importable from its wheel for one version at a time (tests/support/verl_wheel.py); the printed lines
become verl's config as the examples make it (examples/verl_common.py)."""

from __future__ import annotations

import functools
import importlib
import sys

import pytest

import judgebox.verl
from judgebox.tools import cli
from support import verl_wheel

common = verl_wheel.example("verl_common")
URL = "judgebox://judge-a:8080,judgebox://judge-b:8080"  # several servers: a comma, which Hydra reads as a sweep
# what each version's trainer must make of each interface: (the module of the manager class, its name, the function)
REWARD_LOOP, WORKERS = "verl.experimental.reward_loop.reward_manager", "verl.workers.reward_manager"
EXPECTED = {
    ("0.9.1", "naive"): (REWARD_LOOP, "NaiveRewardManager", "default_compute_score"),
    ("0.9.1", "reward-loop"): (REWARD_LOOP, "NaiveRewardManager", "async_compute_score"),
    ("0.9.1", "batch"): (REWARD_LOOP, "NaiveRewardManager", "async_compute_score"),
    ("0.9.1", "prime"): (REWARD_LOOP, "NaiveRewardManager", "prime_compute_score"),
    ("0.6.1", "naive"): (WORKERS, "NaiveRewardManager", "default_compute_score"),
    ("0.6.1", "batch"): (WORKERS, "BatchRewardManager", "compute_score_batch"),
    ("0.6.1", "prime"): (WORKERS, "PrimeRewardManager", "prime_compute_score"),
}


@pytest.fixture(scope="module", params=["0.9.1", "0.6.1"])
def verl(request, tmp_path_factory):
    """One verl version importable; its version string."""
    with verl_wheel.importable(request.param, tmp_path_factory.mktemp("verl")):
        yield request.param
    sys.modules.pop("custom_module", None)  # verl 0.6's loader keeps the file's module under this name


@pytest.fixture(scope="module")
def tokenizer(verl):
    return common.tokenizer(["print(1)"])


def printed(capsys, *args: str) -> list[str]:
    assert cli.main(["verl-config", *args]) == 0
    return capsys.readouterr().out.splitlines()


def reward_manager(config, tokenizer, version: str):
    """verl's reward manager for ``config``, made by verl's own loader as its trainer makes it."""
    from verl.trainer.ppo.reward import load_reward_manager

    if version == "0.9.1":  # verl.experimental.reward_loop.reward_loop.RewardLoopWorker._init_reward_fn
        return load_reward_manager(config, tokenizer)
    # verl 0.6.1's verl.trainer.main_ppo.TaskRunner.run
    return load_reward_manager(config, tokenizer, num_examine=0, **config.reward_model.get("reward_kwargs", {}))


@pytest.mark.slow  # the first imports verl's trainer code (torch...): 30 s, then 1.5-4 s each (Hydra's compose)
@pytest.mark.parametrize("verl, interface", list(EXPECTED), indirect=["verl"])  # 0.6's reward-loop: a refusal
def test_each_line_is_what_the_trainer_takes(verl, tokenizer, capsys, interface):
    where, manager_class, function = EXPECTED[verl, interface]
    sys.modules.pop("custom_module", None)  # each test loads the file as verl 0.6 does, from nothing
    lines = printed(capsys, "--verl", verl, "--interface", interface, "--profile", "verl", "--url", URL)
    config = common.trainer_config(common.override_args(lines))
    manager = reward_manager(config, tokenizer, verl)
    assert type(manager) is getattr(importlib.import_module(where), manager_class)
    loaded = manager.compute_score  # verl's partial(_call_with_kwargs, the function, reward_kwargs)
    assert isinstance(loaded, functools.partial)
    assert loaded.args == (getattr(judgebox.verl, function), {"profile": "verl", "sandbox_fusion_url": URL})
    hook = config.ray_kwargs.ray_init.runtime_env.worker_process_setup_hook  # Ray imports it in each worker
    module, _, name = hook.rpartition(".")
    assert getattr(importlib.import_module(module), name) is judgebox.verl.mask.install


@pytest.mark.slow  # as above: 3-4 s each, once verl is imported
def test_the_other_layouts_lines_do_not_reach_the_trainer(verl, tokenizer, capsys):
    """Why --verl matters: verl 0.9.1 keeps the old top-level keys only for the fully-async trainer's migration,
    so its trainer loads no function from them; verl 0.6.1 has no reward.* keys at all."""
    from hydra.errors import ConfigCompositionException

    other = "0.6" if verl == "0.9.1" else "0.9"
    args = common.override_args(printed(capsys, "--verl", other))
    if verl == "0.6.1":
        with pytest.raises(ConfigCompositionException, match=r"reward\.custom_reward_function\.path"):
            common.trainer_config(args)
        return
    manager = reward_manager(common.trainer_config(args), tokenizer, verl)
    assert not isinstance(manager.compute_score, functools.partial)  # verl's own default scorer
