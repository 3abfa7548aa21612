"""The results file: one JSON line per judged sample, written as each finishes, so an interrupted run
keeps what it judged and the next run with the same file judges only the rest.

A row: ``id``, ``kind`` (``right``/``wrong``: the dataset's known-right and known-wrong solutions;
``sample``: a model's completion), ``sample`` (its index among the problem's of that kind), ``source``,
``language``, ``preset``, ``score``, ``verdict``, ``error`` (why it was not run, or the judge's failure),
``cases`` (each ``[verdict, wall seconds, CPU seconds]``, the CPU time null where the backend reports none),
``limits`` (what its cases ran under: ``time`` in seconds on its ``clock``, ``cpu`` or ``wall``, and
``memory_mb``; a problem's own limits in place of the run's; null if nothing ran), ``seconds`` (the sample's
wall time), ``settings`` (what judged it: preset, the run's limits, judgebox's version) and ``digest`` (of
the record's test data, the program and the settings). A row stands for its sample only while the digest
matches: a sample whose record, program or settings changed is judged again, and its new row, appended, is
the one that counts. A run killed mid-write leaves a last line without its end: it is cut off when the file
is opened again, and that sample judged again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO

from judgebox.errors import UnreadableFile

KINDS = ("right", "wrong", "sample")
ROW_KEYS = ("id", "kind", "sample", "source", "language", "preset", "score", "verdict", "error", "cases", "limits",
            "seconds", "settings", "digest")
Key = tuple[str, str, int]


def key_of(row: dict[str, Any]) -> Key:
    return str(row["id"]), str(row["kind"]), int(row["sample"])


class ResultsFile:
    """The rows already there, the last of each sample's (``latest``), and :meth:`write` to append one,
    flushed at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        rows = load(path, repair=True) if path.exists() else []
        self.latest: dict[Key, dict[str, Any]] = {key_of(r): r for r in rows}  # a later row replaces an earlier
        self._handle: TextIO = path.open("a", encoding="utf-8")

    def write(self, row: dict[str, Any]) -> None:
        self._handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._handle.flush()
        self.latest[key_of(row)] = row

    def close(self) -> None:
        self._handle.close()


def load(path: Path | str, repair: bool = False) -> list[dict[str, Any]]:
    """The file's rows. A last line cut short by a kill is dropped (and, with ``repair``, cut from the
    file, so what is appended next starts on a line of its own); any other line that is not a row is
    an error: that is not a file this run wrote (:class:`judgebox.UnreadableFile`, as a file that cannot be read)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"{path}: {exc.strerror or exc}") from None
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
            raise UnreadableFile(f"{path} line {number} is not a judgebox score result ({exc!r})") from None
        rows.append(row)
    if tail.strip() and complete and complete[-1] is tail and repair:
        with path.open("ab") as handle:  # a whole last row without its newline: end it
            handle.write(b"\n")
    return rows
