"""What both dataset readers (JSONL and the line formats in ``formats.py``, Parquet in ``parquet.py``) say of
what they read: a bad record, a file unreadable as a whole (both defined in :mod:`judgebox.errors`, re-exported
here), and the unpickler that reads data only."""

from __future__ import annotations

import pickle
from typing import Any

from judgebox.errors import BadRecord, UnreadableFile

__all__ = ["BadRecord", "DataOnly", "UnreadableFile"]


class DataOnly(pickle.Unpickler):
    """A pickle that names any class or function is refused, so no code of the file's runs in the judge
    (LiveCodeBench's packing, the Parquet child's messages)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing {module}.{name}")
