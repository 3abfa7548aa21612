"""Presets as declared: one entry each, and the rewards and scores each gives for verdicts, without a run
(tests/judging/test_presets.py runs each preset on real programs)."""

from __future__ import annotations

import pytest

import judgebox.verl
from judgebox import InvalidInput, presets
from judgebox.checkers import DEFAULT
from judgebox.presets import ALL_OR_NOTHING, FIRST_TEN, FRACTION, Reward


def test_every_preset_is_one_entry():
    assert list(presets.PRESETS) == ["judgebox", "verl", "prime", "livecodebench", "codecontests", "sandboxfusion"]
    assert presets.DEFAULT.checking is DEFAULT  # the one default of every entry point
    assert judgebox.verl.PROFILES == tuple(presets.PRESETS)
    with pytest.raises(InvalidInput, match="unknown preset 'apps'; available: judgebox, verl"):
        presets.get("apps")


@pytest.mark.parametrize("name, continuous, reward", [
    ("judgebox", True, FRACTION), ("judgebox", False, FRACTION),
    ("verl", True, FIRST_TEN), ("verl", False, FRACTION),
    ("prime", True, FIRST_TEN), ("prime", False, ALL_OR_NOTHING),
    ("livecodebench", True, ALL_OR_NOTHING), ("codecontests", False, ALL_OR_NOTHING),
    ("sandboxfusion", True, ALL_OR_NOTHING),
])
def test_rewards(name, continuous, reward):
    assert presets.get(name).reward(continuous) == reward
    assert presets.get(name).reward(continuous, binary=True) == ALL_OR_NOTHING


def test_reward_scores():
    assert Reward().score([1, 1, 0.5, 0], 4) == 0.625
    assert Reward("binary").score([1, 1, 1], 3) == 1.0
    assert Reward("binary").score([1, 1], 3) == 0.0  # stopped early: a case failed or did not run
    assert Reward("binary").score([1, 0.5], 2) == 0.0
