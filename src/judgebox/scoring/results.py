"""The results file: one JSON line per judged sample, written as each finishes, so an interrupted run
keeps what it judged and the next run with the same file judges only the rest.

A row: ``id``, ``kind`` (``right``/``wrong``: the dataset's known-right and known-wrong solutions;
``sample``: a model's completion), ``sample`` (its index among the problem's of that kind), ``source``,
``language``, ``score``, ``verdict``, ``error`` (why it was not run, or the judge's failure), ``cases``
(each ``[verdict, seconds]``) and ``seconds`` (the sample's wall time). A run killed mid-write leaves a
last line without its end: it is cut off when the file is opened again, and that sample judged again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO

KINDS = ("right", "wrong", "sample")
ROW_KEYS = ("id", "kind", "sample", "source", "language", "score", "verdict", "error", "cases", "seconds")
Key = tuple[str, str, int]


def key_of(row: dict[str, Any]) -> Key:
    return str(row["id"]), str(row["kind"]), int(row["sample"])


class ResultsFile:
    """Rows already there (``rows``), and :meth:`write` to append one, flushed at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: list[dict[str, Any]] = load(path, repair=True) if path.exists() else []
        self.done: set[Key] = {key_of(r) for r in self.rows}
        self._handle: TextIO = path.open("a", encoding="utf-8")

    def write(self, row: dict[str, Any]) -> None:
        self._handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._handle.flush()
        self.rows.append(row)
        self.done.add(key_of(row))

    def close(self) -> None:
        self._handle.close()


def load(path: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The file's rows. A last line cut short by a kill is dropped (and, with ``repair``, cut from the
    file, so what is appended next starts on a line of its own); any other line that is not a row is
    an error: that is not a file this run wrote."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # the tail is what follows the last newline: empty if none was cut
    if tail.strip():
        try:
            json.loads(tail)
            complete.append(tail)
        except ValueError:
            if repair:
                with path.open("r+b") as handle:
                    handle.truncate(len(data) - len(tail))
                    os.fsync(handle.fileno())
    rows = []
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key_of(row)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path} line {number} is not a judgebox score result ({exc!r})") from None
        rows.append(row)
    if tail.strip() and complete and complete[-1] is tail and repair:
        with path.open("ab") as handle:  # a whole last row without its newline: end it
            handle.write(b"\n")
    return rows
