"""What both dataset readers (JSONL and the line formats in ``formats.py``, Parquet in ``parquet.py``) say of
what they read: a bad record, a file unreadable as a whole, and the unpickler that reads data only."""

from __future__ import annotations

import pickle
from typing import Any

__all__ = ["BadRecord", "DataOnly", "UnreadableFile"]


class BadRecord(Exception):
    """A record that cannot be judged: where it is, which field, what was expected."""

    def __init__(self, where: str, field_name: str, expected: str) -> None:
        super().__init__(f"{where}: field {field_name!r}: {expected}")
        self.where, self.field, self.expected = where, field_name, expected


class UnreadableFile(Exception):
    """The file as a whole cannot be read (missing, not JSONL or Parquet, no pyarrow)."""


class DataOnly(pickle.Unpickler):
    """A pickle that names any class or function is refused, so no code of the file's runs in the judge
    (LiveCodeBench's packing, the Parquet child's messages)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing {module}.{name}")
