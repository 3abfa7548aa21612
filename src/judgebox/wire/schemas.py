"""Wire schemas: SandboxFusion's /run_code and /run_jupyter contracts, and judgebox's native /judge and /judge/batch.

Field names and enum strings of the /run_code and /run_jupyter records follow SandboxFusion exactly
(verl and the ``sandbox-fusion`` client parse them); extra response fields are additions both ignore.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from judgebox.sandbox.inside import abspaths

MAX_CODE_CHARS = 4 * 1024 * 1024


def _check_path(path: str) -> str:
    """A relative path (in the run's work folder) or an absolute one the sandbox can make for the run."""
    _check_text(path, "file path")
    abspaths.top_of(path, abspaths.WORKDIR)  # ValueError: a 422 naming the path
    return path


def _check_text(text: str | None, what: str) -> str | None:
    """Text that reaches the sandbox as bytes must encode: JSON can carry a lone surrogate (``"\\ud800"``)
    that UTF-8 cannot, which would otherwise fail deep in the run as a 500 or a SandboxError."""
    if text is not None:
        try:
            text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{what} is not valid Unicode text: {exc.reason} at position {exc.start}") from None
    return text


def _check_base64(path: str, content: str | None) -> None:
    if content is not None:
        try:
            base64.b64decode(content)  # as leniently as the sandbox decodes it
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"files[{path!r}] is not base64: {exc}") from None


class _WorkFolderFiles(BaseModel):
    """A request's ``files`` (path -> base64, in the run's work folder or at absolute paths) and its
    ``fetch_files``, checked alike by /run_code and /run_jupyter."""

    files: dict[str, str | None]
    fetch_files: list[str] = Field(default_factory=list)

    @field_validator("files")
    @classmethod
    def _files_stay_inside(cls, files: dict[str, str | None]) -> dict[str, str | None]:
        for path, content in files.items():
            _check_path(path)
            _check_base64(path, content)
        return files

    @field_validator("fetch_files")
    @classmethod
    def _fetches_stay_inside(cls, paths: list[str]) -> list[str]:
        return [_check_path(p) for p in paths]

    @model_validator(mode="after")
    def _few_top_folders(self) -> _WorkFolderFiles:
        abspaths.tops_of([*self.files, *self.fetch_files], abspaths.WORKDIR)  # ValueError: a 422
        return self


class RunCodeRequest(_WorkFolderFiles):
    model_config = ConfigDict(extra="ignore")

    code: str = Field(max_length=MAX_CODE_CHARS)
    language: str = "python"
    compile_timeout: float = Field(10, gt=0, le=3600)
    run_timeout: float = Field(10, ge=0.001, le=3600)  # the bounds of Limits.cpu_time
    memory_limit_MB: int = Field(-1, ge=-1, le=65536, description="-1: the server's default limit")
    stdin: str | None = None
    files: dict[str, str | None] = Field(default_factory=dict, description="path -> base64 content; null: skipped")

    @field_validator("stdin")
    @classmethod
    def _stdin_is_text(cls, stdin: str | None) -> str | None:
        return _check_text(stdin, "stdin")



class CommandRunResult(BaseModel):
    status: Literal["Finished", "TimeLimitExceeded", "Error"]
    execution_time: float | None = None
    return_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None
    # judgebox additions
    cpu_time: float | None = None
    memory_peak: int | None = Field(None, description="bytes")
    verdict: str | None = Field(None, description="judgebox's verdict for the run: RE, TLE, MLE, OLE, ...")
    truncated: bool = Field(False, description="stdout or stderr passed the output limit, or is longer than "
                                              "what is returned, and was cut")
    stdout_length: int | None = Field(None, description="bytes the program wrote to stdout")
    stderr_length: int | None = Field(None, description="bytes the program wrote to stderr")


class RunCodeResponse(BaseModel):
    status: Literal["Success", "Failed", "SandboxError"]
    message: str = ""
    compile_result: CommandRunResult | None = None
    run_result: CommandRunResult | None = None
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)
    queue_time: float = Field(0.0, description="seconds waiting for a slot; never counted against the run")


MAX_CELLS = 1000


class RunJupyterRequest(_WorkFolderFiles):
    """SandboxFusion's /run_jupyter request; unlike its /run_code, an unknown key is refused (the official
    client sends only these)."""

    model_config = ConfigDict(extra="forbid")

    cells: list[str] = Field(max_length=MAX_CELLS)
    cell_timeout: float = Field(0, ge=0, le=3600, description="seconds per cell; 0: no limit but total_timeout")
    total_timeout: float = Field(45, gt=0, le=3600, description="seconds for all the cells, the kernel's start apart")
    memory_limit_MB: int = Field(-1, ge=-1, le=65536, description="-1: the server's default limit")
    kernel: Literal["python3"] = "python3"
    files: dict[str, str] = Field(default_factory=dict, description="path -> base64 content")  # type: ignore[assignment]

    @field_validator("cells")
    @classmethod
    def _cells_are_text(cls, cells: list[str]) -> list[str]:
        if sum(len(cell) for cell in cells) > MAX_CODE_CHARS:
            raise ValueError(f"the cells hold more than {MAX_CODE_CHARS} characters")
        for cell in cells:
            _check_text(cell, "a cell")
        return cells



class JupyterError(BaseModel):
    ename: str
    evalue: str
    traceback: list[str]


class CellResult(BaseModel):
    stdout: str
    stderr: str
    display: list[dict[str, Any]] = Field(description="MIME bundles: display_data and execute_result")
    error: list[JupyterError]


class RunJupyterResponse(BaseModel):
    status: Literal["Success", "Failed", "SandboxError"]
    message: str = ""
    driver: CommandRunResult | None = None
    cells: list[CellResult] = Field(default_factory=list)
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)
    # judgebox additions
    truncated: bool = Field(False, description="the cells' outputs passed what is returned, and were cut")
    queue_time: float = Field(0.0, description="seconds waiting for a slot; never counted against the run")


class LimitsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cpu_time: float = Field(5.0, ge=0.001, le=3600)  # the bounds of Limits
    wall_time: float | None = Field(None, ge=0.001, le=7200)
    memory_mb: int = Field(512, ge=16, le=65536)
    output_bytes: int = Field(64 * 1024 * 1024, ge=1024, le=4096 * 1024 * 1024)
    processes: int = Field(64, ge=1, le=4096)
    returned_output_bytes: int = Field(1024 * 1024, ge=0, le=4096 * 1024 * 1024)
    # every field of Limits travels, so a submission judged on a server is judged as it would be embedded
    file_size_bytes: int = Field(64 * 1024 * 1024, ge=1024, le=16384 * 1024 * 1024)
    open_files: int = Field(256, ge=16, le=65536)
    run_time: float | None = Field(None, ge=0.001, le=7200, description="wall-clock less run-queue wait")


class CaseModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["stdio", "call", "assert"] = "stdio"
    stdin: str = ""
    expected_output: str | None = None
    fn_name: str | None = None
    args: list[Any] = Field(default_factory=list)
    expected_value: Any = None
    assert_code: str | None = None
    limits: LimitsModel | None = None
    io: Literal["stdio", "file"] = Field("stdio", description="file: stdin is input.txt, output.txt is judged")

    @field_validator("stdin", "assert_code")
    @classmethod
    def _is_text(cls, text: str | None, info: ValidationInfo) -> str | None:
        return _check_text(text, info.field_name or "text")

    @model_validator(mode="after")
    def _file_io_is_stdio(self) -> CaseModel:
        if self.io == "file" and self.kind != "stdio":
            raise ValueError('io "file" is for stdio cases')
        return self


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(max_length=MAX_CODE_CHARS)
    language: str = "python"
    cases: list[CaseModel] | None = Field(None, max_length=10000)
    test_cases: dict[str, Any] | None = Field(None, description="verl's form, instead of cases")
    limits: LimitsModel = Field(default_factory=LimitsModel)
    checker: str | dict[str, Any] | None = Field(
        None, description="a checker name, {\"name\": ..., options}, or {\"output\": ..., \"value\": ...}; "
                          "none: float for stdout, value for call results (the judgebox preset's); the test "
                          "data's own checker wins")
    stop_on_first_failure: bool = False


class CaseResultModel(BaseModel):
    verdict: str
    cpu_time: float
    wall_time: float
    memory_bytes: int
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    stdout_length: int
    stderr_length: int
    message: str
    points: float | None = Field(None, description="a partial-credit checker's share of the case's points")


class JudgeResponse(BaseModel):
    verdict: str
    score: float
    passed: int
    total: int
    message: str
    cases: list[CaseResultModel]
    wall_time: float
    cpu_time: float
    queue_time: float


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    submissions: list[JudgeRequest] = Field(min_length=1, max_length=4096)


class BatchLine(BaseModel):
    """One line of /judge/batch's NDJSON stream, in the order submissions finish."""

    index: int
    result: JudgeResponse | None = None
    error: str | None = None


class RewardModelRequest(BaseModel):
    """OpenRLHF's remote reward request (``--remote_rm_url``): prompt + response texts, prompts, labels."""

    model_config = ConfigDict(extra="forbid")

    query: list[str] = Field(min_length=1, max_length=4096, description="each prompt and its response, decoded")
    prompts: list[str] = Field(description="each query's prompt, as OpenRLHF gave it to the model")
    labels: list[str | dict[str, Any]] = Field(description="each query's test cases: verl's form, or its JSON text")

    @field_validator("query", "prompts")
    @classmethod
    def _texts(cls, texts: list[str], info: ValidationInfo) -> list[str]:
        for text in texts:
            _check_text(text, info.field_name or "text")
        return texts

    @model_validator(mode="after")
    def _one_each(self) -> RewardModelRequest:
        if not len(self.query) == len(self.prompts) == len(self.labels):
            raise ValueError(f"{len(self.query)} queries, {len(self.prompts)} prompts and {len(self.labels)} labels: "
                             "one of each per sample")
        return self


class RewardModelAnswer(BaseModel):
    """What OpenRLHF reads back: ``rewards`` (trained on), ``scores`` (its dynamic filtering), ``extra_logs``."""

    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[float]]
