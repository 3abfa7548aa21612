"""Attacks found by adversarial review of the judge, kept as tests (each was reproduced before its fix).

"""

from __future__ import annotations

import time

import httpx
import pytest

import judgebox.verl as verl
from conftest import Server
from judgebox import Case, Limits, Verdict

COMPILE_BOMB = "x=1\n" * 500_000  # compiling it needs more than 512 MiB


@pytest.mark.parametrize("limits", [Limits(), Limits(cpu_time=0.3), Limits(memory_mb=256)])
def test_a_program_whose_compilation_is_killed_is_judged_by_its_limits_not_masked(judge, limits):
    result = judge.judge(COMPILE_BOMB, [Case.stdio("", "1")], limits=limits)  # compiled and run, it prints nothing
    assert result.verdict in (Verdict.CE, Verdict.MLE, Verdict.TLE, Verdict.WA), result.cases[0].message


def test_a_compile_bomb_is_no_infra_error_for_verl():
    scored = verl.default_compute_score("codecontests", f"```python\n{COMPILE_BOMB}```",
                                        {"inputs": ["1"], "outputs": ["1"]})
    assert scored["score"] == 0 and not scored["infra_error"], scored


def test_one_huge_token_costs_the_judge_no_more_than_reading_it(judge):
    import resource

    before = resource.getrusage(resource.RUSAGE_THREAD)
    started = time.monotonic()
    case = judge.judge("import os\nos.write(1, b'a' * (60 << 20))", [Case.stdio("", "a")]).cases[0]
    after = resource.getrusage(resource.RUSAGE_THREAD)
    assert case.verdict is Verdict.WA
    # Generous (a byte-at-a-time scan took 8 s of judge CPU); this bounds the judge's own work, not a timing.
    assert after.ru_utime - before.ru_utime < 3.0, (after.ru_utime - before.ru_utime, time.monotonic() - started)


def test_fetching_a_sparse_file_neither_kills_the_worker_nor_counts_as_the_runs_memory():
    """Fetched files are output returned to the caller: at most Limits.returned_output_bytes in all, and a
    file past that is left out (as a file that is not there), whatever the run's memory limit."""
    code = ("f = open('/tmp/a', 'wb'); f.truncate(60 << 20); f.close()\n"
            "open('/tmp/small', 'w').write('kept')\nprint('made')")
    with Server("--workers", "1") as server:
        for memory in (16, 256):
            answer = httpx.post(server.url + "/run_code", json={"code": code, "language": "python",
                                                                "memory_limit_MB": memory,
                                                                "fetch_files": ["small", "a"]}, timeout=120).json()
            assert answer["status"] == "Success", answer.get("message")
            assert answer["files"] == {"small": "a2VwdA=="}


def test_a_fake_library_alias_does_not_pass_asserts(judge):
    """The tests use ``np`` as the prompt's ``import numpy as np``; a program's own ``class np`` must not
    answer for it (a real numpy import does, and is the tests' own numpy)."""
    honest = "import numpy as np\ndef f(x):\n    return [2.0, 3.0]\n"
    assert judge.judge(honest, [Case.asserts("assert np.allclose(f(1), [2.0, 3.0])")]).verdict is Verdict.AC
    program = "class np:\n    @staticmethod\n    def allclose(*a, **k):\n        return True\ndef f(x):\n    return 0\n"
    assert judge.judge(program, [Case.asserts("assert np.allclose(f(1), [2.0, 3.0])")]).score == 0
