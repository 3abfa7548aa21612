"""Wire schemas of SandboxFusion's dataset endpoints (/list_ids, /get_prompts, /get_prompt_by_id, /submit,
/get_metrics): its field names and shapes, which its ``sandbox-fusion`` client sends and parses. Requests
refuse keys SandboxFusion does not define (a misspelt option must not be silently ignored)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judgebox.wire.schemas import RunCodeResponse

_STRICT = ConfigDict(extra="forbid")
# where the code came from: a closed fence, one the completion ended inside, SandboxFusion's language
# heuristics (judgebox has none: an answer with no fence is its code), or nothing to run
ExtractedType = Literal["fenced", "incomplete_fenced", "heuristic", "empty"]


class TestConfig(BaseModel):
    """How to prompt and judge. ``dataset_type`` names the dataset class for a dataset id judgebox does not
    serve; ``provided_data`` is the dataset's rows given inline (a list for /get_prompts and /list_ids, one
    row otherwise); ``extra`` holds a class's own switches (``is_freeform``, ``run_all_cases``, ...)."""

    model_config = _STRICT
    __test__ = False  # not a pytest class, whatever its name

    dataset_type: str | None = None
    language: str | None = None
    locale: str | None = None
    is_fewshot: bool | None = None
    compile_timeout: float | None = Field(None, gt=0, le=3600)
    run_timeout: float | None = Field(None, ge=0.001, le=3600)  # the bounds of Limits.cpu_time
    custom_extract_logic: str | None = Field(None, description="refused: it is Python the server would run")
    provided_data: list[dict[str, Any]] | dict[str, Any] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class GetPromptsRequest(BaseModel):
    model_config = _STRICT

    dataset: str
    config: TestConfig
    offset: int = Field(0, ge=0)
    limit: int = Field(1000000, ge=0)


class GetPromptByIdRequest(BaseModel):
    model_config = _STRICT

    dataset: str
    config: TestConfig
    id: int | str


class SubmitRequest(BaseModel):
    model_config = _STRICT

    dataset: str
    id: int | str
    completion: str
    config: TestConfig


class Message(BaseModel):
    role: str
    content: str


class Prompt(BaseModel):
    id: int | str
    prompt: str | list[Message]
    labels: dict[str, Any] = Field(default_factory=dict)


class EvalTestCase(BaseModel):
    passed: bool
    exec_info: RunCodeResponse
    test_info: dict[str, Any] | None = None


class EvalResult(BaseModel):
    model_config = _STRICT

    id: int | str
    accepted: bool
    extracted_code: str
    full_code: str | None = None
    test_code: str | None = None
    tests: list[EvalTestCase]
    extracted_type: ExtractedType | None = None
    extra: dict[str, Any] | None = None


class GetMetricsRequest(BaseModel):
    model_config = _STRICT

    dataset: str
    config: TestConfig
    results: list[EvalResult]
