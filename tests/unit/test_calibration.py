"""The arithmetic of calibrated limits, and where each data format keeps them: no sandbox, no judge."""

from __future__ import annotations

import json

import pytest

from judgebox.errors import InvalidLimits
from judgebox.tools.calibrate import Calibration
from judgebox.tools.score.formats import FORMATS, as_judgebox_record, to_problem
from judgebox.types import CaseResult, JudgeResult, MiB
from judgebox.verdicts import Verdict

CASES = {"inputs": ["1\n"], "outputs": ["2\n"]}


def _reference(*cases: tuple[float, int]) -> JudgeResult:
    return JudgeResult.fold([CaseResult(Verdict.AC, cpu_time=cpu, memory_bytes=peak) for cpu, peak in cases],
                            len(cases), 0.0)


@pytest.mark.parametrize(("cpu_times", "expected"), [
    ((0.01, 0.02), 1.0),  # under the floor
    ((0.1, 0.4), 1.6),  # the slowest case decides
    ((0.30001,), 1.21),  # rounded up to the 10 ms, never down under the reference's need
    ((0.3,), 1.2),  # a product that floats to 1.2000000000000002 is 1.2, not 1.21
])
def test_the_time_limit_is_the_slowest_case_times_the_factor_rounded_up(cpu_times, expected):
    limits = Calibration().problem_limits(_reference(*((t, MiB) for t in cpu_times)), None)
    assert limits[0] == expected


def test_the_memory_limit_is_the_problems_own_else_the_reference_peak_times_the_factor():
    light, heavy = _reference((0.1, 20 * MiB)), _reference((0.1, 200 * MiB), (0.1, 100 * MiB))
    assert Calibration().problem_limits(light, None)[1] == 512  # the floor: the judge's default
    assert Calibration().problem_limits(heavy, None)[1] == 800
    assert Calibration().problem_limits(heavy, 256)[1] == 256  # stated: kept, a heavier right answer is right
    assert Calibration(memory_factor=2, memory_floor=64).problem_limits(light, None)[1] == 64


@pytest.mark.parametrize("bad", [{"factor": 0.9}, {"floor": 0}, {"memory_factor": 0.5}, {"memory_floor": 0}])
def test_a_calibration_that_would_fail_its_own_reference_is_refused(bad):
    with pytest.raises(InvalidLimits):
        Calibration(**bad)


RECORDS = {
    "judgebox": {"id": "a", "test_cases": CASES},
    "verl": {"data_source": "x", "reward_model": {"ground_truth": json.dumps(CASES)}, "extra_info": {"index": 1}},
    "apps": {"problem_id": 3, "input_output": json.dumps(CASES)},
    "codecontests": {"name": "c", "public_tests": {"input": ["1\n"], "output": ["2\n"]}},
}


@pytest.mark.parametrize("form", RECORDS)
def test_each_format_keeps_the_limits_where_its_reader_finds_them(form):
    writer = next(f for f in FORMATS if f.name == form).with_limits
    assert writer is not None
    problem = to_problem(writer(RECORDS[form], 1.25, 300), "here")
    assert (problem.test_cases["time_limit"], problem.test_cases["memory_limit"]) == (1.25, 300)
    assert problem.form == form


def test_a_format_with_no_place_for_limits_is_written_in_judgebox_form():
    mbpp = {"task_id": 2, "code": "def f(): return 1", "test_list": ["assert f() == 1"]}
    assert next(f for f in FORMATS if f.name == "mbpp").with_limits is None
    problem = to_problem(mbpp, "here")
    record = as_judgebox_record(problem)
    assert to_problem(record, "again").test_cases == problem.test_cases
    assert record["solutions"] == ["def f(): return 1"]
