"""SandboxFusion's dataset API, the parts that start no process: judgebox's wire models have the official
``sandbox-fusion`` client's fields, and a judged submission's answer becomes SandboxFusion's EvalResult (each
case's run in /run_code's shape; a judge failure is no answer at all)."""

from __future__ import annotations

import pytest
from sandbox_fusion import models as client_models

from judgebox.datasets import online_judge, rows
from judgebox.datasets.rows import Row
from judgebox.errors import InvalidInput
from judgebox.wire import datasets as wire
from judgebox.wire.schemas import CaseResultModel, JudgeResponse


@pytest.mark.parametrize("name", ["TestConfig", "GetPromptsRequest", "GetPromptByIdRequest", "SubmitRequest",
                                  "GetMetricsRequest", "Prompt", "EvalResult", "EvalTestCase"])
def test_the_models_have_the_clients_fields(name: str) -> None:
    # the client's models are pydantic v1's (``__fields__``)
    assert set(getattr(wire, name).model_fields) == set(getattr(client_models, name).__fields__)


def case(verdict: str, exit_code: int | None = 0, **fields: object) -> CaseResultModel:
    return CaseResultModel(**{"verdict": verdict, "cpu_time": 0.1, "wall_time": 0.2, "memory_bytes": 1 << 20,
                              "exit_code": exit_code, "signal": None, "stdout": "out", "stderr": "", "message": "",
                              "stdout_truncated": False, "stderr_truncated": False, "stdout_length": 3,
                              "stderr_length": 0} | fields)


def answer(*cases: CaseResultModel) -> JudgeResponse:
    verdict = next((c.verdict for c in cases if c.verdict != "AC"), "AC")
    return JudgeResponse(verdict=verdict, score=0.0, passed=0, total=len(cases), message="", cases=list(cases),
                         wall_time=1.0, cpu_time=1.0, queue_time=0.0)


ROW = Row(3, "text", "python", test_cases={"inputs": ["1\n", "2\n", "3\n", "4\n"], "outputs": ["a", "b", "c", "d"]})
PLANNED = online_judge.Planned(3, "code", "code", "fenced", ROW)


def test_each_case_is_its_run_in_run_codes_shape() -> None:
    result = PLANNED.result(answer(case("AC"), case("WA"), case("RE", 1), case("TLE", None)))
    assert not result.accepted and [t.passed for t in result.tests] == [True, False, False, False]
    statuses = [(t.exec_info.status, t.exec_info.run_result.status, t.exec_info.run_result.return_code)
                for t in result.tests if t.exec_info.run_result]
    # a wrong answer ran and exited 0: its run succeeded, and `passed` says it was wrong (as SandboxFusion has it)
    assert statuses == [("Success", "Finished", 0), ("Success", "Finished", 0), ("Failed", "Finished", 1),
                        ("Failed", "TimeLimitExceeded", None)]
    assert result.tests[1].test_info == {"input": {"stdin": "2\n"}, "output": {"stdout": "b"}}
    built = PLANNED.result(answer(case("CE", None, message="error: expected ';'"))).tests[0].exec_info
    assert (built.status, built.run_result, built.compile_result.stderr) == ("Failed", None, "error: expected ';'")


def test_a_judge_failure_is_no_verdict() -> None:
    with pytest.raises(online_judge.JudgeFailed, match="slot died"):
        PLANNED.result(answer(case("AC"), case("SE", None, message="slot died")))


def test_a_long_case_is_shown_by_its_ends() -> None:
    row = Row(1, "t", "python", test_cases={"inputs": ["x" * 600 + "y" * 600], "outputs": ["z"]})
    shown = online_judge.Planned(1, "c", "c", None, row).result(answer(case("AC"))).tests[0].test_info
    assert shown is not None and shown["input"]["stdin"] == "x" * 500 + "..." + "y" * 500
    full = online_judge.Planned(1, "c", "c", None, row, full_cases=True).result(answer(case("AC"))).tests[0]
    assert full.test_info is not None and full.test_info["input"]["stdin"] == "x" * 600 + "y" * 600


@pytest.mark.parametrize(("labels", "says"), [("{", "is text but not JSON"), ("[" * 100_000, "nested too deeply"),
                                              ("[1]", "must be dict")])
def test_a_provided_rows_json_text_is_refused_with_a_reason(labels: str, says: str) -> None:
    with pytest.raises(InvalidInput, match=says):
        rows.rows("mine", wire.TestConfig(dataset_type="MBPPDataset",
                                          provided_data=[{"id": 1, "content": "c", "labels": labels, "test_list": []}]))
