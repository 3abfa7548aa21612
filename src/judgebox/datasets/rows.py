"""A dataset's rows, whichever form they come in: the datasets judgebox ships, or rows given inline
(``config.provided_data``) in the form SandboxFusion's dataset class reads; and which class a request's
dataset is, as SandboxFusion resolves it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from judgebox import datasets
from judgebox.errors import InvalidInput
from judgebox.judging.cases import MAX_JSON_VALUES, json_error, json_values, over_values
from judgebox.wire.datasets import TestConfig

AUTOEVAL = "AutoEvalDataset"
# the classes /submit knows, by SandboxFusion's names (AutoEval's versions are its aliases there too)
CLASSES = frozenset({"HumanEvalDataset", "MBPPDataset", "CommonOJDataset", AUTOEVAL, "AutoEvalV4Dataset",
                     "AutoEvalV5Dataset", "AutoEvalV6Dataset"})


class Refused(Exception):
    """A request SandboxFusion refuses with this status and text."""

    def __init__(self, detail: str, status: int = 400) -> None:
        super().__init__(detail)
        self.detail, self.status = detail, status


@dataclass(frozen=True)
class Row:
    """One dataset row, whichever form it came in: its wire id, the text its prompt is made of, and its tests
    in judgebox's (verl's) form."""

    id: int | str
    text: str
    language: str
    labels: dict[str, Any] = field(default_factory=dict)
    test_cases: dict[str, Any] | None = None
    shown_tests: tuple[str, ...] = ()  # MBPP: the asserts its prompt shows
    setup: str = ""  # MBPP: test_setup_code, run before the program
    test: dict[str, Any] | None = None  # AutoEval: {"code", "asset"}


@dataclass(frozen=True)
class Resolved:
    eval_class: str
    shipped: datasets.Shipped | None  # the dataset judgebox ships under this id, if it is one


def resolve(dataset: str, config: TestConfig) -> Resolved:
    """The dataset class, as SandboxFusion resolves it: a served id's own class, else ``config.dataset_type``."""
    if config.custom_extract_logic is not None:
        raise Refused("config.custom_extract_logic is refused: it is Python source the server would run "
                      "outside the sandbox; judgebox takes the code from the completion itself")
    shipped = datasets.by_sandboxfusion_id(dataset)
    if shipped is not None:
        return Resolved(shipped.eval_class, shipped)
    if config.dataset_type is None:
        raise Refused(f"no eval class found for dataset {dataset}")
    if config.dataset_type not in CLASSES:
        raise Refused(f"eval class {config.dataset_type} not found; judgebox has {', '.join(sorted(CLASSES))}")
    return Resolved(config.dataset_type, None)


def rows(dataset: str, config: TestConfig) -> tuple[Resolved, list[Row]]:
    resolved = resolve(dataset, config)
    data = config.provided_data
    if data is not None:
        listed = data if isinstance(data, list) else [data]
        return resolved, [_provided(resolved.eval_class, row, i) for i, row in enumerate(listed)]
    if resolved.shipped is None:
        raise Refused(f"dataset {dataset} has no rows here: give them in config.provided_data")
    return resolved, list(_shipped_rows(resolved.shipped.name))


def row_by_id(dataset: str, config: TestConfig, ident: int | str) -> tuple[Resolved, Row]:
    if isinstance(config.provided_data, dict):  # the one row given is the row, whatever its id (as there)
        resolved = resolve(dataset, config)
        return resolved, _provided(resolved.eval_class, config.provided_data, 0)
    resolved, found = rows(dataset, config)
    for row in found:
        if row.id == ident or str(row.id) == str(ident) or _number(row.id) == str(ident):
            return resolved, row
    raise Refused(f"dataset {dataset} has no row with id {ident!r}", status=404)


def _number(ident: int | str) -> str | None:
    """HumanEval/7's 7: SandboxFusion's clients also ask for such rows by their number."""
    return str(ident).rpartition("/")[2] if isinstance(ident, str) and "/" in ident else None


@cache
def _shipped_rows(name: str) -> tuple[Row, ...]:
    entry = datasets.get(name)
    out = []
    for position, record in enumerate(entry.rows()):
        meta = record.get("meta", {})
        labels = {"id": record["id"], "source": record["source"]}
        if "entry_point" in meta:
            labels["entry_point"] = meta["entry_point"]
        out.append(Row(entry.wire_id(record["id"], position), record["prompt"], record["language"], labels,
                       record["test_cases"], tuple(meta.get("test_list", ()))))
    return tuple(out)


def _provided(eval_class: str, row: Any, index: int) -> Row:
    """A row given inline, in the form SandboxFusion's class reads."""
    where = f"config.provided_data[{index}]"
    if not isinstance(row, dict):
        raise InvalidInput(f"{where} must be an object, got {type(row).__name__}")
    if eval_class == "HumanEvalDataset":
        if "tests" in row:
            raise InvalidInput(f"{where}: MultiPL-E rows (tests, stop_tokens) are not judged here; give HumanEval's "
                               "task_id, prompt, test and entry_point")
        test, entry = _field(row, "test", str, where), _field(row, "entry_point", str, where)
        return Row(_field(row, "task_id", (int, str), where), _field(row, "prompt", str, where), "python",
                   {k: v for k, v in row.items() if k != "prompt"},
                   {"inputs": [""], "outputs": [None], "assert_case": [f"{test}\ncheck({entry})\n"]})
    ident, text = _field(row, "id", (int, str), where), _field(row, "content", str, where)
    labels = json_field(row, "labels", dict, where, {})
    if eval_class == "MBPPDataset":
        tests = json_field(row, "test_list", list, where)
        if not all(isinstance(t, str) for t in tests):
            raise InvalidInput(f"{where}.test_list must be a list of asserts (strings)")
        return Row(ident, text, "python", labels, {"inputs": [""] * len(tests), "outputs": [None] * len(tests),
                                                   "assert_case": tests},
                   tuple(tests), str(labels.get("test_setup_code") or ""))
    if eval_class == "CommonOJDataset":
        cases = json_field(row, "test", list, where, None)
        return Row(ident, text, str(labels.get("language", "python")), labels,
                   None if cases is None else _stdio_cases(cases, where))
    test = json_field(row, "test", dict, where, None)
    return Row(ident, text, str(labels.get("programming_language", "python")), labels, test=test)


def _field(row: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidInput(f"{where}.{key} must be {expected}, got {type(value).__name__}")
    return value


def json_field(row: dict[str, Any], key: str, kind: type, where: str, default: Any = ...) -> Any:
    """A field SandboxFusion's tables keep as JSON text or as the value itself (its ``ensure_json``)."""
    value = row.get(key)
    if value is None and default is not ...:
        return default
    if isinstance(value, str):
        if (count := json_values(value)) > MAX_JSON_VALUES:  # weighed before it is parsed, as every reader does
            raise InvalidInput(f"{where}.{key}: {over_values('the JSON text', count)}")
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as exc:
            raise InvalidInput(f"{where}.{key} is text but not JSON: {json_error(exc)}") from None
    if not isinstance(value, kind):
        raise InvalidInput(f"{where}.{key} must be {kind.__name__} (or its JSON), got {type(value).__name__}")
    return value


def _stdio_cases(cases: list[Any], where: str) -> dict[str, Any]:
    """SandboxFusion's GeneralStdioTest list ({input: {stdin}, output: {stdout}}) as judgebox's cases."""
    inputs, outputs = [], []
    for i, case in enumerate(cases):
        try:
            stdin, stdout = case["input"]["stdin"], case["output"]["stdout"]
        except (KeyError, TypeError):
            raise InvalidInput(f"{where}.test[{i}] must be {{\"input\": {{\"stdin\": ...}}, \"output\": "
                               "{\"stdout\": ...}}") from None
        if set(case["input"]) != {"stdin"} or set(case["output"]) != {"stdout"}:
            raise InvalidInput(f"{where}.test[{i}]: only stdin and stdout are judged here, not files")
        inputs.append(stdin)
        outputs.append(stdout)
    return {"inputs": inputs, "outputs": outputs}
