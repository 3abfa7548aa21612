"""Presets: one declarative entry each; where ecosystems disagree, each preset gives its own ecosystem's
verdict on a real run; on CodeContests' 300 references the judgebox preset is tolerant."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import judgebox.verl
from judgebox import presets
from support.data import load_dataset

# references at 1.0 under the judgebox preset (tests/data/README.md: 255 validated). 257 in two runs at 5871b69
# and 9b8d3c5, 258 in earlier ones: one reference's result varies between runs; the 43 that fail, fail in every
# run, as the dataset's validation says (wrong answers to any-answer problems, and 3 runtime errors)
CODECONTESTS_TOLERANT = 257
# (The verl preset on the same references is tests/trainers/test_verl_parity.py's: each sample's score and
# statuses equal verl's own scorer's, which a count here would only repeat.)
# The slowest references take up to 8.5 s of CPU per case (more on a slow machine): a limit with room to spare,
# on CPU time, which load does not inflate
TIMEOUT = 20


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



@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
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
        return judgebox.verl.compute_score(None, None, 1024, job[0], job[1], True, TIMEOUT,
                                           profile=profile)[0]

    with ThreadPoolExecutor(8) as pool:
        return sum(score == 1.0 for score in pool.map(one, jobs))


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 300 samples of up to 10 cases, some taking seconds of CPU each
def test_codecontests_references_pass_under_the_judgebox_preset():
    full = _full_scores("judgebox")
    print(f"\ncodecontests references at 1.0 under the judgebox preset: {full}/300")
    assert full >= CODECONTESTS_TOLERANT
