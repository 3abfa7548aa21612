"""LiveCodeBench's own grading code, loaded from lighteval's wheel (``scripts/setup.sh --test`` puts it in
.cache/lighteval): ``lighteval/tasks/tasks/lcb/codegen_metrics.py`` carries LiveCodeBench's ``testing_util``
(``check_correctness``, ``grade_stdio``, ``grade_call_based``). Only that file is loaded, by path: lighteval's
package imports its whole stack. It runs the programs it grades unsandboxed, in children of this process:
give it known programs only."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import tempfile
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

WHEELS = Path(__file__).resolve().parents[2] / ".cache" / "lighteval"
MEMBER = "lighteval/tasks/tasks/lcb/codegen_metrics.py"
NAME = "judgebox_livecodebench_reference"


def pass_at_1(cases: dict[str, Any], code: str, timeout: int = 6) -> tuple[float, list]:
    """LiveCodeBench's verdict on ``code``: 1.0 when every case is True (its pass@1), and its results. Its
    module raises the interpreter's digit limit for int-to-str conversions at import (to 50,000); that holds
    here only while it grades (its child inherits it), never for the rest of the test session."""
    module = _grader()
    digits = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(50000)
    try:
        results = module.check_correctness({"input_output": json.dumps(cases)}, code, timeout)
    finally:
        sys.set_int_max_str_digits(digits)
    return (1.0 if results and all(result is True for result in results) else 0.0), results


@functools.cache
def _grader() -> ModuleType:
    wheels = sorted(WHEELS.glob("lighteval-0.13.0-*.whl"))
    if not wheels:
        pytest.fail(f"lighteval 0.13.0's wheel is not in {WHEELS}: run scripts/setup.sh --test")
    with tempfile.TemporaryDirectory(prefix="judgebox-lcb-") as folder, zipfile.ZipFile(wheels[0]) as archive:
        path = Path(archive.extract(MEMBER, folder))
        spec = importlib.util.spec_from_file_location(NAME, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[NAME] = module
        digits = sys.get_int_max_str_digits()
        try:
            spec.loader.exec_module(module)  # (it reads the file now)
        finally:
            sys.set_int_max_str_digits(digits)
    return module
