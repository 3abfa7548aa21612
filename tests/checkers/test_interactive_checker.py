"""testlib's two phases for interactive problems: the interactor relays the exchange and writes what the
solution answered to its output file (``tout``), then the problem's checker judges that file against the
case's answer (``judging/interactive.py``, rule 7).

Two problems: testlib's own a+b interactor (``tests/testlib/interactors``), judged against the expected
answers by the output checker or by testlib's wcmp; and the tests' Polygon-style "hidden sum" (its own relay
interactor and checker, ``support/special_judges/sum_relay_*.cpp``), the same through ``judge()``, ``/judge``
and ``judgebox.verl``. Then the reward hacks of the second phase: forging or planting the output file, a
flood through it, junk the interactor relays.
"""

from __future__ import annotations

import httpx
import pytest

import judgebox
import judgebox.verl
from judgebox import Limits, Verdict
from judgebox.sandbox.config import SandboxConfig
from support.server import Server
from support.special_judges import HIDDEN_SUM, IN_REPOSITORY, find_testlib, hidden_sum, program

pytestmark = pytest.mark.slow  # testlib.h compiles (about 15 s) for each interactor and checker, once per module

A_PLUS_B = {"language": "cpp", "code": (IN_REPOSITORY / "interactors" / "interactor-a-plus-b.cpp").read_text()}
WCMP = {"language": "cpp", "code": (IN_REPOSITORY / "checkers" / "wcmp.cpp").read_text()}
A_PLUS_B_DATA = {"inputs": ["3\n1 2\n10 20\n-5 7\n", "1\n1000000 1000000\n"], "outputs": ["3\n30\n2\n", "2000000\n"],
                 "interactor": A_PLUS_B, "time_limit": 2}

ADD = """
import sys
for line in sys.stdin:
    a, b = map(int, line.split())
    print(a + b, flush=True)
"""
SUBTRACT = ADD.replace("a + b", "a - b")
SILENT = "import time\ntime.sleep(60)\n"
# Answers a - b on the exchange, then writes the right sums wherever the interactor's output file might be
# reached: its own descriptor 10 (closed), every process's, and files named like it in the work folder.
FORGE = """
import glob, sys
sums = []
for line in sys.stdin:
    a, b = map(int, line.split())
    sums.append(a + b)
    print(a - b, flush=True)
text = "".join(f"{s}\\n" for s in sums)
for path in ["/proc/self/fd/10", *glob.glob("/proc/[0-9]*/fd/10"), "tout", "output.txt", "/proc/self/fd/9"]:
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError:
        pass
"""




SUM_PLUS_ONE = HIDDEN_SUM.replace('"!", total', '"!", total + 1')
JUNK = HIDDEN_SUM.replace('"!", total', '"!", "abc"')
ARRAYS = ([5], [1, 2, 3], [-7, 100, 42, 0])


@pytest.fixture(scope="module")
def testlib_judge():
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=2) as judge:
        yield judge


@pytest.fixture(scope="module")
def testlib_server():
    with Server("--workers", "2", env={"JUDGEBOX_TESTLIB": find_testlib()}) as running:
        yield running


def verdicts(result) -> list[Verdict]:
    return [case.verdict for case in result.cases]


# -- testlib's a+b interactor with the expected answers ----------------------------------------------------

@pytest.mark.parametrize("checker", [None, WCMP], ids=["output-checker", "testlib-wcmp"])
@pytest.mark.parametrize(("code", "expected"), [(ADD, Verdict.AC), (SUBTRACT, Verdict.WA), (SILENT, Verdict.TLE)],
                         ids=["right", "a-minus-b", "silent"])
def test_testlib_a_plus_b(testlib_judge, checker, code, expected):
    data = dict(A_PLUS_B_DATA, **({"checker": checker} if checker else {}))
    result = testlib_judge.judge(code, data)
    assert verdicts(result) == [expected] * 2, [c.message for c in result.cases]


def test_without_answers_the_interactor_is_the_judge(testlib_judge):
    """No answer given and no checker program: the interactor's OK stands, as before the second phase."""
    data = dict(A_PLUS_B_DATA, outputs=["", ""])
    assert verdicts(testlib_judge.judge(SUBTRACT, data)) == [Verdict.AC] * 2


# -- a Polygon-style problem: its own relay interactor and checker, through every entry point ---------------

@pytest.mark.parametrize(("code", "expected"), [(HIDDEN_SUM, Verdict.AC), (SUM_PLUS_ONE, Verdict.WA),
                                                (JUNK, Verdict.WA), ("input()\ninput()\n", Verdict.TLE)],
                         ids=["right", "off-by-one", "junk", "silent"])
def test_hidden_sum_the_same_everywhere(testlib_judge, testlib_server, code, expected):
    data = hidden_sum(*ARRAYS)
    embedded = testlib_judge.judge(code, data)
    assert verdicts(embedded) == [expected] * len(ARRAYS), [c.message for c in embedded.cases]

    answer = httpx.post(testlib_server.url + "/judge", json={"code": code, "language": "python", "test_cases": data},
                        timeout=120)
    assert answer.status_code == 200, answer.text
    served = answer.json()
    assert [case["verdict"] for case in served["cases"]] == [expected.value] * len(ARRAYS), served
    assert served["score"] == embedded.score

    completion = f"```python\n{code}\n```"
    for target in (testlib_judge, testlib_server.url):  # verl's reward: embedded, and on the server
        scored = judgebox.verl.default_compute_score("codeforces", completion, data, sandbox_fusion_url=target)
        assert (scored["score"], scored["verdict"]) == (embedded.score, embedded.verdict.value), scored


def test_the_checker_setting_beside_the_interactor_in_judge(testlib_judge):
    """``judge(checker=...)`` names the second phase's checker when the data names none."""
    result = testlib_judge.judge(SUM_PLUS_ONE, hidden_sum(*ARRAYS, checker=False),
                                 checker=program("sum_relay_checker.cpp"))
    assert verdicts(result) == [Verdict.WA] * len(ARRAYS)
    assert "the sum is" in result.cases[0].message


# -- reward hacks of the second phase: never AC, never SE ---------------------------------------------------

def test_forging_the_interactors_output_file(testlib_judge):
    result = testlib_judge.judge(FORGE, A_PLUS_B_DATA)
    assert verdicts(result) == [Verdict.WA] * 2, [c.message for c in result.cases]


FLOOD = HIDDEN_SUM.replace('print("!", total, flush=True)',
                           'import sys\nsys.stdout.write("! " + "9" * (3 << 20) + "\\n")\nsys.stdout.flush()')


def test_a_flood_through_the_interactor(testlib_judge):
    result = testlib_judge.judge(FLOOD, hidden_sum([1, 2]), limits=Limits(output_bytes=1 << 20))
    assert result.cases[0].verdict in (Verdict.WA, Verdict.TLE), result.cases[0].message


@pytest.mark.parametrize("said", ["0x10", "-0", "6.0", "\\x00", "1e400"])
def test_junk_the_interactor_relays(testlib_judge, said):
    code = HIDDEN_SUM.replace('print("!", total, flush=True)', f'print("!", {said!r}, flush=True)')
    result = testlib_judge.judge(code, hidden_sum([1, 2, 3]))
    assert result.cases[0].verdict in (Verdict.WA, Verdict.TLE), result.cases[0].message


def test_the_checker_program_failing_on_the_output_is_blamed_on_it(testlib_judge):
    """A checker that FAILs on what the interactor relayed, but judges the jury's answer cleanly: WA."""
    checker = {"language": "cpp", "code": (
        '#include "testlib.h"\nint main(int argc, char* argv[]) {\n    registerTestlibCmd(argc, argv);\n'
        '    std::string said = ouf.readToken();\n    if (said == "fail") quitf(_fail, "provoked");\n'
        '    quitf(said == ans.readToken() ? _ok : _wa, "compared");\n}\n')}
    code = HIDDEN_SUM.replace('print("!", total, flush=True)', 'print("!", "fail", flush=True)')
    result = testlib_judge.judge(code, dict(hidden_sum([4]), checker=checker))
    assert result.cases[0].verdict is Verdict.WA, result.cases[0].message
