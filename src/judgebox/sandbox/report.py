"""Which isolation layers are active on this machine, and what is missing from the required set."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from judgebox.errors import JudgeboxError
from judgebox.sandbox.config import SandboxConfig
from judgebox.sandbox.slot import Slot


def isolation_report(config: SandboxConfig | None = None) -> dict[str, Any]:
    """Start one sandbox slot and report what it could set up.

    Returns ``{"mode", "euid", "python", "layers", "required", "missing", "ok", "error"}``; ``ok`` is
    False (and ``error`` says why) when untrusted code would be refused.
    """
    config = config or SandboxConfig()
    report: dict[str, Any] = {"mode": config.mode, "euid": os.geteuid(), "required": sorted(config.required_layers)}
    try:
        slot = Slot(dataclasses.replace(config, required=frozenset()))
    except JudgeboxError as exc:
        return {**report, "python": None, "layers": {}, "missing": report["required"], "ok": False,
                "error": str(exc)}
    try:
        missing = sorted(layer for layer in config.required_layers if not slot.layers.get(layer))
        return {**report, "python": f"{slot.interpreter} ({slot.python_version})", "layers": dict(slot.layers),
                "missing": missing, "ok": not missing,
                "error": f"missing isolation layers: {', '.join(missing)}" if missing else None}
    finally:
        slot.close()
