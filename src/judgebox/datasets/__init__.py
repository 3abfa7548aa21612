"""The datasets judgebox ships, by name: the one registry ``judgebox score NAME`` and the server's
SandboxFusion dataset endpoints (:mod:`judgebox.datasets.online_judge`) both read.

    datasets.get("humaneval").path            # the .jsonl.gz in the package
    datasets.by_sandboxfusion_id("mbpp")      # the entry SandboxFusion's dataset id names

Each entry is declarative: its file in ``data/`` (judgebox's record format, gzip-compressed, the licenses
beside them), the language of its problems, SandboxFusion's dataset class that judges such rows (it
decides the prompt and how a completion becomes a program) and the dataset ids SandboxFusion serves it
under, and how its ids look on SandboxFusion's wire.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from judgebox.errors import InvalidInput

# SandboxFusion's id of a row, from judgebox's: "same" (HumanEval/0), "number" (mbpp/1 -> 1, as MBPP's
# task_id), "position" (the row's place in the file: SandboxFusion numbers CodeContests' rows so)
IdStyle = Literal["same", "number", "position"]
EvalClass = Literal["HumanEvalDataset", "MBPPDataset", "CommonOJDataset"]


@dataclass(frozen=True)
class Shipped:
    name: str  # judgebox score's name for it
    file: str  # in judgebox/datasets/data
    language: str
    eval_class: EvalClass  # SandboxFusion's class for rows like these
    sandboxfusion_ids: tuple[str, ...]  # the dataset ids /list_datasets names it by
    id_style: IdStyle

    @property
    def path(self) -> Path:
        return Path(str(resources.files(__package__) / "data" / self.file))

    def rows(self) -> list[dict[str, Any]]:
        """Its records, read once (the package's own data: trusted, and small)."""
        return _rows(self.file)

    def wire_id(self, ident: str, position: int) -> int | str:
        if self.id_style == "number":
            return int(ident.rpartition("/")[2])
        return position if self.id_style == "position" else ident


# SandboxFusion serves HumanEval as humaneval_python, MBPP as mbpp and CodeContests as code_contests. Its
# humaneval_{cpp,java,...} are MultiPL-E's translations, another dataset: HumanEval-X goes by ids of its own.
SHIPPED: tuple[Shipped, ...] = (
    Shipped("humaneval", "humaneval.jsonl.gz", "python", "HumanEvalDataset", ("humaneval_python",), "same"),
    Shipped("mbpp", "mbpp.jsonl.gz", "python", "MBPPDataset", ("mbpp",), "number"),
    Shipped("codecontests", "codecontests.jsonl.gz", "python", "CommonOJDataset", ("code_contests",), "position"),
    *(Shipped(f"humaneval-x-{lang}", f"humaneval_x_{lang}.jsonl.gz", lang, "HumanEvalDataset",
              (f"humaneval_x_{lang}",), "same")
      for lang in ("python", "cpp", "java", "js")),
)
_BY_NAME = {entry.name: entry for entry in SHIPPED}
_BY_SANDBOXFUSION_ID = {ident: entry for entry in SHIPPED for ident in entry.sandboxfusion_ids}


def names() -> list[str]:
    return [entry.name for entry in SHIPPED]


def sandboxfusion_ids() -> list[str]:
    return list(_BY_SANDBOXFUSION_ID)


def get(name: str) -> Shipped:
    entry = _BY_NAME.get(name)
    if entry is None:
        raise InvalidInput(f"{name!r} is not a dataset judgebox ships; it ships {', '.join(names())}")
    return entry


def by_sandboxfusion_id(ident: str) -> Shipped | None:
    return _BY_SANDBOXFUSION_ID.get(ident)


@cache
def _rows(file: str) -> list[dict[str, Any]]:
    with gzip.open((resources.files(__package__) / "data" / file).open("rb"), "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
