"""Presets: one declarative entry each; where ecosystems disagree, each preset gives its own ecosystem's
verdict on a real run; on CodeContests' 300 references the judgebox preset is tolerant and verl's strict."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import judgebox.verl
from conftest import load_dataset
from judgebox import InvalidInput, presets
from judgebox.checkers import DEFAULT
from judgebox.presets import ALL_OR_NOTHING, FIRST_TEN, FRACTION, Reward
from judgebox.verl import reference

CODECONTESTS_TOLERANT = 258  # references at 1.0 under the judgebox preset (tests/data/README.md: 255 validated)
# Under verl's rstrip("\n") equality: tests/data/README.md's 222 is the dataset's validation run, which timed out
# on 3 heavy references that pass exactly when given the time (verl's own scorer on judgebox serve gives 225,
# bench/README.md).
CODECONTESTS_STRICT = 225
# The slowest references take up to 8.5 s of CPU per case. judgebox's limit is on CPU time, which load does
# not inflate; verl's timeout is its run's real time, which a loaded machine stretches (at a load of 15 on 2
# cores, 30 s lost 2 of the 225), so its leg gets room to spare.
TIMEOUTS = {"judgebox": 20, "verl": 90}


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


# (program's output, expected) and each preset's verdict, from the ecosystems' rules
DISAGREEMENTS = [
    ("print('YES')", "yes", {"judgebox": "WA", "verl": "WA", "prime": "WA", "livecodebench": "WA",
                             "codecontests": "AC", "sandboxfusion": "AC"}),
    ("print('0.3333333')", "0.333333", {"judgebox": "AC", "verl": "WA", "prime": "AC", "livecodebench": "WA",
                                        "codecontests": "AC", "sandboxfusion": "AC"}),
    ("print('1 2 ')", "1 2", {"judgebox": "AC", "verl": "PE", "prime": "AC", "livecodebench": "AC",
                              "codecontests": "AC", "sandboxfusion": "AC"}),
    ("print('1\\n2')", "1 2", {"judgebox": "AC", "verl": "PE", "prime": "WA", "livecodebench": "WA",
                               "codecontests": "AC", "sandboxfusion": "WA"}),
    ("print('1.50')", "1.5", {"judgebox": "AC", "verl": "WA", "prime": "AC", "livecodebench": "AC",
                              "codecontests": "AC", "sandboxfusion": "AC"}),
    ("print(123456700.0)", "123456789", {"judgebox": "WA", "verl": "WA", "prime": "AC", "livecodebench": "WA",
                                         "codecontests": "WA", "sandboxfusion": "AC"}),
]


@pytest.mark.parametrize("code, expected, verdicts", DISAGREEMENTS)
def test_each_preset_gives_its_ecosystems_verdict(judge, code, expected, verdicts):
    got = {name: str(judge.judge(code, {"inputs": [""], "outputs": [expected]},
                                 checker=preset.checking).verdict) for name, preset in presets.PRESETS.items()}
    assert got == verdicts


@pytest.fixture(scope="module")
def prime_code():
    wheel = reference.find_wheel(Path(__file__).resolve().parents[1] / ".cache" / "verl")
    if wheel is None:
        pytest.fail("verl's wheel is not in .cache/verl: run scripts/setup.sh")
    return reference.load(wheel)[1]


@pytest.mark.parametrize("code, expected, verdicts", DISAGREEMENTS)
def test_prime_preset_agrees_with_prime_code(prime_code, code, expected, verdicts):
    """verl's own prime_code (these known programs run unsandboxed, in a child of this process)."""
    cases = {"inputs": [""], "outputs": [expected]}
    theirs = prime_code.compute_score(f"```python\n{code}\n```", cases, continuous=True)[0]
    ours = judgebox.verl.compute_score(None, None, 1024, f"```python\n{code}\n```", cases, True, profile="prime")[0]
    assert ours == float(theirs) == (verdicts["prime"] == "AC")


def _full_scores(profile: str) -> int:
    records = load_dataset("codecontests.jsonl")
    jobs = [(f"```python\n{code}\n```", r["test_cases"]) for r in records for code in r["solutions"]]
    assert len(jobs) == 300

    def one(job: tuple[str, dict]) -> float:
        return judgebox.verl.compute_score(None, None, 1024, job[0], job[1], True, TIMEOUTS[profile],
                                           profile=profile)[0]

    with ThreadPoolExecutor(8) as pool:
        return sum(score == 1.0 for score in pool.map(one, jobs))


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 300 samples of up to 10 cases, some taking seconds of CPU each
def test_codecontests_references_pass_under_the_judgebox_preset():
    full = _full_scores("judgebox")
    print(f"\ncodecontests references at 1.0 under the judgebox preset: {full}/300")
    assert full >= CODECONTESTS_TOLERANT


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_codecontests_references_under_the_verl_preset_are_verls_strict_count():
    full = _full_scores("verl")
    print(f"\ncodecontests references at 1.0 under the verl preset: {full}/300")
    assert full == CODECONTESTS_STRICT
