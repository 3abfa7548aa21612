"""SandboxFusion's dataset API over judgebox's judge: prompts of a dataset's rows, and a completion judged on
its row's tests (``/submit``), for the datasets judgebox ships and for rows given inline (``provided_data``).

The row's class (:mod:`.rows`) decides the prompt (:mod:`.prompts`) and how a completion becomes the
program; the program is then judged the judgebox way: the code is taken from the completion as ``judgebox
score`` takes it, and the row's tests are judged as ``/judge`` judges them (or, for an ``AutoEvalDataset``
row, its program run as ``/run_code`` runs it). The web framework is the server's: this module answers in
wire models and raises :class:`~.rows.Refused` for what SandboxFusion answers with a 400,
:class:`JudgeFailed` for a judge that failed.
"""

from __future__ import annotations

import re
import secrets
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from judgebox import languages
from judgebox.datasets.metrics import pass_at_ks
from judgebox.datasets.prompts import prompt
from judgebox.datasets.rows import Refused, Row, json_field, resolve, row_by_id, rows
from judgebox.errors import InvalidInput
from judgebox.languages.extract import answer_code, final_answer
from judgebox.wire.datasets import (
    EvalResult,
    EvalTestCase,
    ExtractedType,
    GetMetricsRequest,
    GetPromptByIdRequest,
    GetPromptsRequest,
    Prompt,
    SubmitRequest,
)
from judgebox.wire.schemas import (
    CaseResultModel,
    CommandRunResult,
    JudgeRequest,
    JudgeResponse,
    LimitsModel,
    RunCodeRequest,
    RunCodeResponse,
)

RUN_TIMEOUT = 20.0  # SandboxFusion's default run timeout (here: CPU seconds a case)
COMPILED_RUN_TIMEOUT = 10.0  # CommonOJ's, for the languages it compiles
COMPILED = frozenset({"cpp", "go", "java"})
AUTOEVAL_COMPILE_TIMEOUT = 40.0  # SandboxFusion's for an AutoEval row's build
SHOWN_CASE_CHARS = 1000  # of a case's input and output in test_info, unless extra.return_full_case
INSERT = "#<INSERT>"  # where an AutoEval test takes the program


class JudgeFailed(Exception):
    """The judge failed (SE) on the submission: no verdict, never a rejected answer."""


def prompts(body: GetPromptsRequest) -> list[Prompt]:
    resolved, found = rows(body.dataset, body.config)
    return [prompt(resolved, row, body.config) for row in found[body.offset:body.offset + body.limit]]


def list_ids(body: GetPromptsRequest) -> list[int | str]:
    return [row.id for row in rows(body.dataset, body.config)[1][body.offset:body.offset + body.limit]]


def prompt_by_id(body: GetPromptByIdRequest) -> Prompt:
    resolved, row = row_by_id(body.dataset, body.config, body.id)
    return prompt(resolved, row, body.config)


# --- submissions ----------------------------------------------------------------------------------------------

# HumanEval's completion continues the prompt: it ends where a line starts unindented (its stop sequences)
_BODY_END = re.compile(r"\n(?=\S)")


@dataclass(frozen=True)
class Planned:
    """What /submit judges, and how the judge's answer becomes SandboxFusion's EvalResult: ``judge`` the row's
    tests as /judge judges them, or ``run`` one program as /run_code runs it (AutoEval), or neither (no code)."""

    id: int | str
    extracted: str
    full_code: str
    extracted_type: ExtractedType | None
    row: Row
    judge: JudgeRequest | None = None
    run: RunCodeRequest | None = None
    flag: str | None = None  # AutoEval's append_flag: the run passes only if it printed this
    full_cases: bool = False

    def result(self, answer: JudgeResponse | RunCodeResponse | None) -> EvalResult:
        tests: list[EvalTestCase] = []
        accepted = False
        if isinstance(answer, JudgeResponse):
            failed = [c for c in answer.cases if c.verdict == "SE"]
            if failed or answer.verdict == "SE":
                why = failed[0].message if failed else answer.message
                raise JudgeFailed(f"the judge failed on the submission: {why}")
            tests = [EvalTestCase(passed=c.verdict == "AC", exec_info=_exec_info(c), test_info=self._info(i))
                     for i, c in enumerate(answer.cases)]
            accepted = answer.verdict == "AC"
        elif isinstance(answer, RunCodeResponse):
            if answer.status == "SandboxError":
                raise JudgeFailed(f"the judge failed on the submission: {answer.message}")
            stdout = answer.run_result.stdout if answer.run_result else None
            accepted = answer.status == "Success" and (self.flag is None or self.flag in (stdout or ""))
            tests = [EvalTestCase(passed=accepted, exec_info=answer)]
        test_code = "\n".join((self.row.test_cases or {}).get("assert_case", [])) or None
        return EvalResult(id=self.id, accepted=accepted, extracted_code=self.extracted, full_code=self.full_code,
                          test_code=test_code, tests=tests, extracted_type=self.extracted_type)

    def _info(self, index: int) -> dict[str, Any] | None:
        cases = self.row.test_cases or {}
        if cases.get("assert_case"):
            return None  # the asserts are test_code
        shown = (lambda text: text) if self.full_cases else _shortened
        return {"input": {"stdin": shown(str(cases["inputs"][index]))},
                "output": {"stdout": shown(str(cases["outputs"][index]))}}


def submission(body: SubmitRequest) -> Planned:
    """What /submit judges; the program, limits or files it makes of the row that no run may take (past
    /run_code's or /judge's bounds) are the request's fault (422), named."""
    try:
        return _submission(body)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"the submission makes no valid run: {problems}") from None


def _submission(body: SubmitRequest) -> Planned:
    resolved, row = row_by_id(body.dataset, body.config, body.id)
    config = body.config
    kind = resolved.eval_class
    if kind == "CommonOJDataset":
        if not config.language:
            raise Refused("config.language field must exist for CommonOJDataset, got None")
        language = config.language
    else:
        language = row.language
    if languages.lookup(language) is None:
        raise InvalidInput(f"unknown language {language!r}")
    if kind.startswith("AutoEval"):
        _runs_in(row, language)  # the row's fault, whatever the completion holds
    completion = body.completion
    continues = row.text if kind == "HumanEvalDataset" and not config.extra.get("is_freeform") else ""
    if kind == "MBPPDataset":
        completion = completion.split("[DONE]")[0]
    elif continues and language == "python" and "```" not in completion and "~~~" not in completion:
        completion = _body(completion)  # a bare body, cut where the model went on past the function
    code = answer_code(completion, language, continues)
    extracted_type = _extracted_type(completion, code)
    if code is None:
        return Planned(body.id, "", "", extracted_type, row)
    if continues:
        code = row.text + (_body(code) if language == "python" else code)
    elif kind == "MBPPDataset":
        code = _before(_before(_before(code, "\nassert"), '\n"""'), "if __name__ ==")
        code = f"{row.setup}\n{code}" if row.setup else code
    if kind.startswith("AutoEval"):
        return _autoeval(body, row, code, language, extracted_type)
    if row.test_cases is None:
        raise InvalidInput("the row has no tests (CommonOJ's test)")
    default = COMPILED_RUN_TIMEOUT if kind == "CommonOJDataset" and language in COMPILED else RUN_TIMEOUT
    judge = JudgeRequest(code=code, language=language, test_cases=row.test_cases,
                         limits=LimitsModel(cpu_time=config.run_timeout or default),
                         stop_on_first_failure=kind == "CommonOJDataset" and not config.extra.get("run_all_cases"))
    return Planned(body.id, code, code, extracted_type, row, judge=judge,
                   full_cases=bool(config.extra.get("return_full_case")))


def _autoeval(body: SubmitRequest, row: Row, code: str, language: str, extracted_type: ExtractedType | None) -> Planned:
    if row.test is None or not isinstance(row.test.get("code"), str):
        raise InvalidInput("config.provided_data.test.code must be the test program (text)")
    test = row.test["code"]
    if INSERT in test:
        full = test.replace(INSERT, code, 1)
    else:
        full = _before(code, "if __name__ ==") + "\n" + test
    runs_in = _runs_in(row, language)
    flag = None
    if body.config.extra.get("append_flag") and runs_in == "python":
        flag = secrets.token_hex(10)
        full += f'\n\nprint("{flag}")'
    asset = json_field(row.test, "asset", dict, "config.provided_data.test", {})
    run = RunCodeRequest(code=full, language=runs_in, run_timeout=body.config.run_timeout or RUN_TIMEOUT,
                         compile_timeout=body.config.compile_timeout or AUTOEVAL_COMPILE_TIMEOUT, files=asset)
    return Planned(body.id, code, full, extracted_type, row, run=run, flag=flag)


def _runs_in(row: Row, language: str) -> str:
    """The language an AutoEval row's test program runs in."""
    runs_in = str(row.labels.get("execution_language", language))
    if languages.lookup(runs_in) is None:  # jest, junit: SandboxFusion's test runners, which judgebox has not
        raise Refused(f"labels.execution_language {runs_in!r} is not a language judgebox runs")
    return runs_in


def _body(code: str) -> str:
    """A Python continuation of HumanEval's prompt, up to its first unindented line (HumanEval's stop
    sequences); code that does not start indented is left whole."""
    return _BODY_END.split(code, maxsplit=1)[0] if code.startswith((" ", "\t", "\n")) else code


def _before(text: str, marker: str) -> str:
    index = text.find(marker)
    return text if index < 0 else text[:index]


def _extracted_type(completion: str, code: str | None) -> ExtractedType | None:
    if code is None:
        return "empty"
    fences = sum(1 for line in final_answer(completion).splitlines() if line.lstrip().startswith("```"))
    return None if fences == 0 else "fenced" if fences % 2 == 0 else "incomplete_fenced"


def _shortened(text: str) -> str:
    if len(text) <= SHOWN_CASE_CHARS:
        return text
    half = SHOWN_CASE_CHARS // 2
    return f"{text[:half]}...{text[-half:]}"


def _exec_info(case: CaseResultModel) -> RunCodeResponse:
    """A judged case in /run_code's shape: the run's status (a wrong answer that exited 0 ran successfully;
    ``passed`` says it was wrong), with judgebox's verdict beside it."""
    ran = CommandRunResult(status="TimeLimitExceeded" if case.verdict == "TLE" else "Finished",
                           execution_time=case.wall_time, stdout=case.stdout, stderr=case.stderr or case.message,
                           return_code=None if case.verdict == "TLE" else
                           case.exit_code if case.exit_code is not None else -(case.signal or 0),
                           cpu_time=case.cpu_time, memory_peak=case.memory_bytes, verdict=case.verdict,
                           truncated=case.stdout_truncated or case.stderr_truncated,
                           stdout_length=case.stdout_length, stderr_length=case.stderr_length)
    if case.verdict == "CE":
        return RunCodeResponse(status="Failed", compile_result=ran)
    return RunCodeResponse(status="Success" if case.verdict in ("AC", "WA", "PE") and case.exit_code == 0
                           else "Failed", run_result=ran)


# --- metrics --------------------------------------------------------------------------------------------------


def metrics(body: GetMetricsRequest) -> dict[str, Any]:
    """pass@k over the results, grouped by id, for each k every id has samples for; {} for no results."""
    resolve(body.dataset, body.config)
    samples: dict[str, list[bool]] = defaultdict(list)
    for result in body.results:
        samples[str(result.id)].append(result.accepted)
    if not samples:
        return {}
    counts = [(len(v), sum(v)) for v in samples.values()]
    figures: dict[str, Any] = {k: v["value"] for k, v in pass_at_ks(counts).items()}
    return figures | {"problems": len(counts), "accepted": sum(c for _, c in counts) / sum(n for n, _ in counts)}
