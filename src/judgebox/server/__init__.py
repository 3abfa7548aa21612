"""judgebox's HTTP service (``judgebox serve``): the only package that imports the web framework.

``create_app`` and ``ServerSettings`` load on first use, so ``judgebox.wire.schemas`` (which the client
shares) needs only pydantic.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ServerSettings", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(".app", __name__), name)
    raise AttributeError(f"module 'judgebox.server' has no attribute {name!r}")
