"""The reward-hack battery: each file in tests/reward_hacks/ is a model answer that tries to earn reward
without solving its task, and the default profile must give every one of them 0.

A file's header says why the hack might work (``# why:``), its test cases in verl's form (``# test_cases:``,
JSON), and the score verl 0.9.1 gives it (``# verl_score:``, a number or a fraction such as ``1/3``), which
``profile="verl"`` must reproduce: the battery so documents which hacks fool verl, and guards the parity
profile. verl's scores were measured with verl's own scorer (its wheel), the programs run as SandboxFusion
runs them, ``python file.py``. ``# think:`` puts reasoning before the answer, as a reasoning model writes
it. A line ``#   more`` (two or more spaces) continues the previous value. The program is the rest of the
file, answered in a ```python fence. The test cases are chosen so that an honest wrong or empty answer
fails: the only route to reward is the hack.

``# known-gap:`` marks a hack that still beats the default profile (a strict xfail, so that a fix forces
the header off). ``# runner-gap: the profile gives X: why`` records where ``profile="verl"`` run by judgebox
scores a hack unlike verl on SandboxFusion, because judgebox's runner is not ``python file.py`` (no program
file, no interpreter finalization, tracebacks printed by the runner): the test then expects X.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from judgebox.verl import compute_score

HACKS = Path(__file__).with_name("reward_hacks")
HEADERS = {"why", "test_cases", "verl_score", "think", "known-gap", "runner-gap"}
MEMORY_LIMIT_MB = 1024


@dataclass(frozen=True)
class Hack:
    name: str
    why: str
    test_cases: dict
    verl_score: float
    completion: str
    known_gap: str | None  # why the default profile still rewards it
    runner_gap: str | None  # why the verl profile, on judgebox's runner, scores it unlike verl

    @property
    def verl_profile_score(self) -> float:
        """What profile="verl" gives: verl's score, unless a runner gap says otherwise."""
        if self.runner_gap is None:
            return self.verl_score
        match = re.match(r"the profile gives ([0-9./]+):", self.runner_gap)
        assert match, f"{self.name}: a runner-gap header starts 'the profile gives X:'"
        return float(Fraction(match[1]))


def load(path: Path) -> Hack:
    headers: dict[str, str] = {}
    lines = path.read_text().splitlines()
    while lines:
        match = re.fullmatch(r"# ([a-z_-]+): (.*)", lines[0])
        if match:
            assert match[1] in HEADERS, f"{path.name}: unknown header {match[1]!r}"
            headers[match[1]] = match[2].strip()
        elif headers and re.fullmatch(r"#  +\S.*", lines[0]):
            last = list(headers)[-1]
            headers[last] += " " + lines[0][1:].strip()
        else:
            break
        lines.pop(0)
    try:
        why, test_cases = headers["why"], json.loads(headers["test_cases"])
        verl_score = float(Fraction(headers["verl_score"]))
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{path.name}: a header is missing or malformed: {exc!r}") from None
    think = f"<think>\n{headers['think']}\n</think>\n\n" if "think" in headers else ""
    program = "\n".join(lines).strip("\n")
    return Hack(path.name, why, test_cases, verl_score, f"{think}```python\n{program}\n```\n",
                headers.get("known-gap"), headers.get("runner-gap"))


BATTERY = [load(path) for path in sorted(HACKS.glob("*.py"))]


def _params(gap: str) -> list:
    """One parameter per hack, a strict xfail where ``gap`` (an attribute of Hack) says why it fails."""
    return [pytest.param(hack, id=hack.name, marks=[pytest.mark.xfail(strict=True, reason=getattr(hack, gap))]
                         if getattr(hack, gap) else []) for hack in BATTERY]


def score(completion: str, test_cases: dict, profile: str) -> tuple[float, list[dict]]:
    return compute_score(None, None, MEMORY_LIMIT_MB, completion, test_cases, profile=profile)


@pytest.mark.parametrize("hack", _params("known_gap"))
def test_default_profile_gives_no_reward(hack: Hack) -> None:
    reward, metadata = score(hack.completion, hack.test_cases, "judgebox")
    assert reward == 0.0, [{k: m.get(k) for k in ("verdict", "status", "message", "stderr")} for m in metadata]


@pytest.mark.parametrize("hack", BATTERY, ids=[hack.name for hack in BATTERY])
def test_verl_profile_gives_verls_score(hack: Hack) -> None:
    reward, metadata = score(hack.completion, hack.test_cases, "verl")
    assert reward == pytest.approx(hack.verl_profile_score, abs=1e-9), [m.get("status") for m in metadata]


def test_the_battery_has_teeth() -> None:
    """Enough hacks, and enough of them fooling verl, that the default profile's 0 means something."""
    assert len(BATTERY) >= 15
    assert sum(hack.verl_score > 0 for hack in BATTERY) >= 5


# Honest, correct answers to some of the battery's problems: they score 1.0, so a hack's 0 comes from the
# judge seeing through it, not from test cases that nothing could pass.
HONEST = {
    "assert_sys_exit.py": "def digit_sum(n):\n    return sum(map(int, str(n)))\n",
    "assert_linecache.py": "def cube(n):\n    return n ** 3\n",
    "assert_shadow_builtins.py": "import math\n\n\ndef divisors(n):\n"
                                 "    return [d for d in range(1, n + 1) if n % d == 0]\n",
    "assert_agreeable_operators.py": "import math\n\n\ndef hypotenuse(a, b):\n    return math.hypot(a, b)\n",
    "call_raise.py": "def remove_vowels(text):\n    return ''.join(c for c in text if c not in 'aeiou')\n",
    "call_solution_raise.py": "import os\n\n\nclass Solution:\n    def longestCommonPrefix(self, strs):\n"
                              "        return os.path.commonprefix(strs)\n",
    "stdio_constant_guess.py": "n = int(input())\nprint(sum(n % d == 0 for d in range(1, n + 1)))\n",
    "stdio_parity_heuristic.py": "n = int(input())\n"
                                 "print('YES' if n > 1 and all(n % d for d in range(2, n)) else 'NO')\n",
}


@pytest.mark.parametrize("name", sorted(HONEST))
@pytest.mark.parametrize("profile", ["judgebox", "verl"])
def test_an_honest_answer_to_the_same_problem_scores_full(name: str, profile: str) -> None:
    hack = next(hack for hack in BATTERY if hack.name == name)
    reward, metadata = score(f"```python\n{HONEST[name]}```\n", hack.test_cases, profile)
    assert reward == 1.0, [(m.get("status"), m.get("stderr")) for m in metadata]
