"""Parquet rows read in a process of their own whose address space the kernel caps: run as a script
(``python -I parquet_child.py FILE BOUND BUDGET FIRST_GROUP``) by :mod:`judgebox.tools.score.parquet`.

pyarrow decodes a whole page, in C++, before any check of ours can run: a 10 KB file can hold a page
that inflates to 1 GiB, a dictionary page that a million rows repeat, a string prefix-coded a million
times. The file's metadata can say how large a column is, not how large one cell is, nor what a
dictionary or a prefix code becomes; so what decides is the kernel: past ``BUDGET`` bytes above what
this process had before reading, an allocation fails (MemoryError, or an abort in pyarrow), and only this
process pays for it. A row group is read a few rows at a time; a row whose Arrow data is over ``BOUND``
(the bound of one record) is not turned into Python at all. The parent words every message; this side
sends facts, as length-prefixed pickles of plain data on stdout:

    ("file", row_groups)                    once, after the file opened
    ("group", index, first_row, rows)       before each row group
    ("row", record)  ("big", nbytes)  ("bad", why)      one a row, in order
    ("lost", why, detail)                   the rest of the row group cannot be decoded
    ("end",)                                every row group was read
    ("unreadable", why, detail)             the file cannot be read at all

Only the standard library and pyarrow are imported: this runs as a script, outside the package.
"""

from __future__ import annotations

import os
import pickle
import resource
import struct
import sys
from typing import Any, BinaryIO

PLAIN = (str, int, float, bool, bytes, type(None))  # what the parent's unpickler builds (no classes)
BATCH_ROWS = 256  # at most, and fewer when the row group's rows are large


def main(argv: list[str]) -> None:
    path, bound, budget, first = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but messages on the pipe
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return send(out, ("unreadable", "no pyarrow", ""))
    try:
        table = pq.ParquetFile(path, buffer_size=1 << 16)  # a column is read as it is decoded, not at once
    except OSError as exc:
        return send(out, ("unreadable", "os", str(exc)))
    except Exception as exc:  # pyarrow's own errors for a file that is not Parquet
        return send(out, ("unreadable", "not parquet", str(exc)))
    cap_memory(budget)
    meta = table.metadata
    send(out, ("file", meta.num_row_groups))
    first_row = sum(meta.row_group(g).num_rows for g in range(first))
    for index in range(first, meta.num_row_groups):
        rows = meta.row_group(index).num_rows
        send(out, ("group", index, first_row, rows))
        read_group(out, table, index, bound)
        first_row += rows
    send(out, ("end",))


def cap_memory(budget: int) -> None:
    """The address space from now on: what the process has (Python, pyarrow, the open file) plus the
    budget. No core file: an abort in pyarrow is an expected end here."""
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (mapped + budget, resource.RLIM_INFINITY))


def read_group(out: BinaryIO, table: Any, index: int, bound: int) -> None:
    """The row group's rows, in batches small enough that a batch of average rows stays far under the
    bound; what cannot be decoded ends the row group (pyarrow cannot skip past a page)."""
    meta = table.metadata.row_group(index)
    columns = [meta.column(c) for c in range(meta.num_columns)]
    average = sum(c.total_uncompressed_size for c in columns) // max(1, meta.num_rows)
    batch_rows = max(1, min(BATCH_ROWS, bound // 8 // max(1, average)))
    try:
        for batch in table.iter_batches(batch_size=batch_rows, row_groups=[index], use_threads=False):
            for i in range(batch.num_rows):
                send(out, row_message(batch.slice(i, 1), bound))
    except MemoryError:
        largest = max(columns, key=lambda c: c.total_uncompressed_size, default=None)
        send(out, ("lost", "memory", "" if largest is None else
                   f"{largest.path_in_schema!r} is {largest.total_uncompressed_size} bytes uncompressed here"))
    except Exception as exc:  # a corrupt page, an unsupported encoding: pyarrow's errors, the file's fault
        send(out, ("lost", "error", f"{type(exc).__name__}: {exc}"))


def row_message(row: Any, bound: int) -> tuple[Any, ...]:
    """One row as plain data, or why not: its Arrow data is weighed before any Python is made of it."""
    if row.nbytes > bound:
        return ("big", row.nbytes)
    try:
        return ("row", plain(row.to_pylist()[0]))
    except MemoryError:  # a dictionary value repeated many times in a list: small in Arrow, not in Python
        return ("bad", "memory")
    except RecursionError:
        return ("bad", "deep")


def plain(value: Any) -> Any:
    """``value`` with every non-builtin (a timestamp, a Decimal) as its text, in place: the formats read
    only text, numbers, lists and objects, and the parent unpickles no class."""
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = plain(item)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = plain(item)
    elif isinstance(value, tuple):  # a map's (key, value) entries
        return tuple(plain(item) for item in value)
    elif type(value) not in PLAIN:
        return str(value)
    return value


def send(out: BinaryIO, message: tuple[Any, ...]) -> None:
    try:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:  # only a row is large enough: its pickle does not fit in the budget
        data = pickle.dumps(("bad", "memory"))
    out.write(struct.pack("!Q", len(data)))
    out.write(data)
    out.flush()


if __name__ == "__main__":
    main(sys.argv)
