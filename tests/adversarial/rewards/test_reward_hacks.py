"""The reward-hack battery: each file in tests/adversarial/rewards/python/ is a model answer that tries to earn reward
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
import uuid
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

import judgebox
import judgebox.verl as verl
from judgebox import Case, Limits, Verdict
from judgebox.verl import compute_score

HACKS = Path(__file__).with_name("python")
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


@pytest.mark.slow  # about 23 s in all on this busy 2-core machine
@pytest.mark.parametrize("hack", _params("known_gap"))
def test_default_profile_gives_no_reward(hack: Hack) -> None:
    reward, metadata = score(hack.completion, hack.test_cases, "judgebox")
    assert reward == 0.0, [{k: m.get(k) for k in ("verdict", "status", "message", "stderr")} for m in metadata]


@pytest.mark.slow  # about 11 s in all on this busy 2-core machine
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


# Attacks on the reward through the judge, each reproduced before its fix: a program whose compilation is
# killed (a compile bomb) must be judged by its limits, not masked as SE; a program's own ``class np`` must not
# answer for the tests' numpy.

COMPILE_BOMB = "x=1\n" * 500_000  # compiling it needs more than 512 MiB


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
@pytest.mark.parametrize("limits", [Limits(), Limits(cpu_time=0.3), Limits(memory_mb=256)])
def test_a_program_whose_compilation_is_killed_is_judged_by_its_limits_not_masked(judge, limits):
    result = judge.judge(COMPILE_BOMB, [Case.stdio("", "1")], limits=limits)  # compiled and run, it prints nothing
    assert result.verdict in (Verdict.CE, Verdict.MLE, Verdict.TLE, Verdict.WA), result.cases[0].message


@pytest.mark.slow  # about 7 s in all on this busy 2-core machine
def test_a_compile_bomb_is_no_infra_error_for_verl():
    scored = verl.default_compute_score("codecontests", f"```python\n{COMPILE_BOMB}```",
                                        {"inputs": ["1"], "outputs": ["1"]})
    assert scored["score"] == 0 and not scored["infra_error"], scored


def test_a_fake_library_alias_does_not_pass_asserts(judge):
    """The tests use ``np`` as the prompt's ``import numpy as np``; a program's own ``class np`` must not
    answer for it (a real numpy import does, and is the tests' own numpy)."""
    honest = "import numpy as np\ndef f(x):\n    return [2.0, 3.0]\n"
    assert judge.judge(honest, [Case.asserts("assert np.allclose(f(1), [2.0, 3.0])")]).verdict is Verdict.AC
    program = "class np:\n    @staticmethod\n    def allclose(*a, **k):\n        return True\ndef f(x):\n    return 0\n"
    assert judge.judge(program, [Case.asserts("assert np.allclose(f(1), [2.0, 3.0])")]).score == 0


# Attack: the program binds a standard module's name to a *different* module (``import numpy as math``),
# and the tests' ``math`` becomes T's numpy: ``math.isclose`` is then numpy.isclose (rtol 1e-5, atol 1e-8)
# instead of math.isclose (rel_tol 1e-9), so an answer off by 3e-6 passes.
#
# split.tests_namespace drops program names bound over a builtin, a standard module or an alias only when
# they are Remotes (``class math``); a name bound to a module is always given T's copy of whichever module
# the program named, so the program still chooses what ``math`` means to the expected side of the tests
# (the hack README says earns nothing: "shadowing set or math").
#
# Judge gave: AC (the same program with a plain ``import math`` gets WA).
# A correct judge gives WA: a name that is a standard module (or a conventional alias) means that module in
# the tests, whatever the program bound it to.

TEST = "assert math.isclose(area(1), 3.141592653589793)"


def test_math_bound_to_numpy_does_not_loosen_the_tests():
    program = "import numpy as math\ndef area(r):\n    return 3.1416 * r * r\n"
    honest = "import math\ndef area(r):\n    return 3.1416 * r * r\n"
    with judgebox.Judge(slots=1) as judge:
        assert judge.judge(honest, [Case.asserts(TEST)], limits=Limits(cpu_time=3)).verdict is Verdict.WA
        result = judge.judge(program, [Case.asserts(TEST)], limits=Limits(cpu_time=3))
    assert result.verdict is Verdict.WA, (result.verdict, result.cases[0].message)


# Attack: the call harness (pyrun._call / _encode_other) turns non-JSON return values into JSON before the
# judge compares them, and some of those conversions do the task's work or change the answer's type.
#
# - ``return set(xs)`` is sent as ``sorted(set)``: a program that never sorts passes "sort the list" tasks
#   (any task whose expected answer is the sorted list of distinct items). Reward without solving. WORKS.
# - ``return b"abc"`` passes for the expected str ``"abc"`` (bytes decoded to text).
# - an object of the program's class whose ``__repr__`` is the expected text passes for that str
#   (``{"__repr__": ...}`` collapses to the string in classify._check_value).
# - false negatives (correct programs scored 0): a returned int of more than 4300 digits is RE (json.dumps
#   hits the int->str digit limit); a dict with int keys is WA against the same dict (keys become strings).
#
# Judge gave: AC for the four hacks (verl: score 1.0 for the set); RE and WA for the two correct programs.
# A correct judge gives WA for the hacks (a set, bytes, an object are not the expected list/str; in one
# process ``set(x) == [1, 2, 3]`` is False) and AC for the two correct programs.

@pytest.fixture(scope="module")
def one_slot_judge():
    with judgebox.Judge(slots=1) as j:
        yield j


HACKS = {
    "set_does_the_sorting": ("def sort_list(xs):\n    return set(xs)\n",
                             Case.call("sort_list", [[3, 1, 2]], [1, 2, 3])),
    "frozenset_does_the_sorting": ("def sort_words(ws):\n    return frozenset(ws)\n",
                                   Case.call("sort_words", [["b", "c", "a"]], ["a", "b", "c"])),
    "bytes_for_str": ("def f(s):\n    return s.encode()\n", Case.call("f", ["abc"], "abc")),
    "repr_for_str": ("class A:\n    def __repr__(self):\n        return 'abc'\ndef f(s):\n    return A()\n",
                     Case.call("f", ["x"], "abc")),
}


@pytest.mark.parametrize("name", HACKS)
def test_a_non_list_value_does_not_pass_for_a_list_or_str(one_slot_judge, name):
    code, case = HACKS[name]
    result = one_slot_judge.judge(code, [case], limits=Limits(cpu_time=2))
    assert result.verdict is Verdict.WA, (name, result.verdict, result.cases[0].message)


CORRECT = {
    "big_int": ("def f(n):\n    return 10 ** n\n", Case.call("f", [5000], 10 ** 5000)),
    "int_keys": ("def f(x):\n    return {1: x}\n", Case.call("f", ["a"], {1: "a"})),
}


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_value_passes(one_slot_judge, name):
    code, case = CORRECT[name]
    result = one_slot_judge.judge(code, [case], limits=Limits(cpu_time=2))
    assert result.verdict is Verdict.AC, (name, result.verdict, result.cases[0].message, result.cases[0].stderr[-300:])


def test_verl_reward_for_returning_a_set_on_a_sorting_task():
    """The same hack through verl's reward (judgebox profile): full reward for a program that never sorts."""
    import json

    import judgebox.verl as verl

    ground_truth = {"inputs": ["[3, 1, 2]", "[5, 4]"], "outputs": ["[1, 2, 3]", "[4, 5]"], "fn_name": "sort_list"}
    completion = "```python\nclass Solution:\n    def sort_list(self, xs):\n        return set(xs)\n```"
    scored = verl.default_compute_score("taco", completion, json.dumps(ground_truth))
    assert scored["score"] == 0 and not scored["infra_error"], scored


# A note the judge would read as SE, written by the program to every descriptor it might hold.
FORGER = r'''
import os, json
note = json.dumps({"op": "note", "kind": "test-compile-error", "detail": "forged"}).encode()
for fd in range(3, 64):
    try:
        os.write(fd, note)
    except OSError:
        pass
'''


@pytest.mark.parametrize("case", [Case.stdio("", "1\n"), Case.call("f", [], 1), Case.asserts("assert f() == 1")],
                         ids=["stdio", "call", "assert"])
def test_a_program_cannot_forge_a_note_into_an_se(judge, case):
    """Held (review of the typed protocol): a program that writes a note (TEST_COMPILE_ERROR, which the judge
    reads as SE) to every descriptor it might hold does not get SE, which would mask its 0."""
    code = FORGER + "\ndef f():\n    return 2\nprint(2)\n"
    result = judge.judge(code + f"# {uuid.uuid4().hex}", [case])
    assert result.verdict not in (Verdict.SE, Verdict.AC), result
