"""A Parquet file's rows, decoded by ``parquet_child.py`` in a process of its own whose address space the
kernel caps at :data:`PARQUET_BUDGET` above its start.

pyarrow decodes a whole page in C++ before any check of ours can run, and the file's metadata cannot say
what a cell, a repeated dictionary value or a prefix code becomes; so the bound is the kernel's, and only
the child pays for a bomb. What the child could not finish is one bad record for the rows from there to
the end of their row group (pyarrow decodes a column's pages in order: nothing after a bomb in its row
group can be reached), and a new child reads on from the next row group: a bomb costs its row group,
never the file. The child sends facts; every message is worded here.
"""

from __future__ import annotations

import io
import os
import signal
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from judgebox.judging.cases import MAX_RECORD_BYTES, over_bound
from judgebox.tools.score.records import BadRecord, DataOnly, UnreadableFile
from judgebox.types import MiB

CHILD = Path(__file__).with_name("parquet_child.py")
# The child's memory. pyarrow holds about three copies of a cell while it decodes it (the page, the array,
# a builder's spare room), and the row's Python and pickle are two more: at twice the bound a legit 30 MiB
# cell is refused, at four times a cell up to ~55 MiB is read. A bomb larger than this fails at its page's
# allocation, before any of it is made.
PARQUET_BUDGET = 4 * MAX_RECORD_BYTES
SHORT = "the row group held fewer rows than its metadata says"


@dataclass
class _Group:
    """The row group being read: where its rows are in the file, and how many have come."""

    index: int
    first: int  # rows before it in the file
    rows: int
    done: int = 0


def read_parquet(path: Path) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each row, ``(where, BadRecord)`` for a row or the rest of a row group that
    could not be read. :class:`UnreadableFile` if the file cannot be read at all."""
    start, groups = 0, None
    while groups is None or start < groups:
        group: _Group | None = None
        errors = tempfile.TemporaryFile()
        child = _child(path, start, errors)
        try:
            for message in _messages(child.stdout):
                kind = message[0]
                if kind == "unreadable":
                    raise UnreadableFile(_unreadable(path, message[1], message[2]))
                if kind == "file":
                    groups = message[1]
                    continue
                if kind in ("group", "end", "lost") and group is not None:  # the row group before is over
                    yield from _rest(path, group, _lost(message[1], message[2]) if kind == "lost" else SHORT)
                if kind == "group":
                    group = _Group(message[1], message[2], message[3])
                elif kind == "end":
                    return
                elif kind != "lost" and group is not None:
                    group.done += 1
                    yield _row(f"{path.name} row {group.first + group.done}", message)
        finally:
            ended = _ended(child, errors)
        if groups is None or group is None:
            raise UnreadableFile(f"{path}: the Parquet reader failed ({ended})")
        yield from _rest(path, group, f"the Parquet reader, capped at {PARQUET_BUDGET // MiB} MiB, ended decoding "
                                      f"them ({ended})")
        start = group.index + 1


def _child(path: Path, start: int, errors: IO[bytes]) -> subprocess.Popen[bytes]:
    """The child reading ``path`` from row group ``start``: isolated (``-I``: no paths but the
    interpreter's own), its stderr kept aside for the message if it dies, pyarrow on the system allocator
    (which gives freed memory back, so the cap measures what is in use)."""
    return subprocess.Popen(
        [sys.executable, "-I", str(CHILD), str(path), str(MAX_RECORD_BYTES), str(PARQUET_BUDGET), str(start)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors,
        env={**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "system"})


def _messages(stream: IO[bytes] | None) -> Iterator[tuple[Any, ...]]:
    """The child's length-prefixed messages, until it stops; one longer than the child could have made
    within its budget is the end of them, not read."""
    while stream is not None and len(header := stream.read(8)) == 8:
        size, = struct.unpack("!Q", header)
        if size > PARQUET_BUDGET or len(body := stream.read(size)) < size:
            return
        yield DataOnly(io.BytesIO(body)).load()


def _row(where: str, message: tuple[Any, ...]) -> tuple[str, Any]:
    if message[0] == "row":
        return where, message[1]
    if message[0] == "big":
        return where, BadRecord(where, "(row)", over_bound("the row's data", message[1]))
    why = "nested too deeply" if message[1] == "deep" else f"could not be made into Python within {_budget()}"
    return where, BadRecord(where, "(row)", why)


def _rest(path: Path, group: _Group, why: str) -> Iterator[tuple[str, BadRecord]]:
    """One bad record for the rows of the row group not read yet, if any; they count as read now."""
    if group.done < group.rows:
        first, last = group.first + group.done + 1, group.first + group.rows
        where = f"{path.name} row {last}" if first == last else f"{path.name} rows {first}-{last}"
        group.done = group.rows
        yield where, BadRecord(where, "(row group)", why)


def _lost(why: str, detail: str) -> str:
    if why != "memory":
        return f"pyarrow could not decode them ({detail})"
    return f"pyarrow could not decode them within {_budget()}" + (f": {detail}" if detail else "")


def _budget() -> str:
    return (f"the Parquet reader's {PARQUET_BUDGET // MiB} MiB ({PARQUET_BUDGET // MAX_RECORD_BYTES} times the "
            f"{MAX_RECORD_BYTES // MiB} MiB bound of one record)")


def _unreadable(path: Path, why: str, detail: str) -> str:
    if why == "no pyarrow":
        return "reading Parquet needs pyarrow (pip install pyarrow)"
    return f"{path}: {detail}" if why == "os" else f"{path}: not a Parquet file ({detail})"


def _ended(child: subprocess.Popen[bytes], errors: IO[bytes]) -> str:
    """How the child ended (killed now if it is still running), with the last line it wrote on stderr."""
    if child.poll() is None:
        child.kill()
    status = child.wait()
    if child.stdout is not None:
        child.stdout.close()
    with errors:
        errors.seek(max(0, errors.seek(0, os.SEEK_END) - 2048))
        said = errors.read().decode("utf-8", "replace").strip().splitlines()
    how = f"killed by {signal.Signals(-status).name}" if status < 0 else f"exit status {status}"
    return how + (f": {said[-1]}" if said else "")
