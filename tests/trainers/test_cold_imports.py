"""What a trainer's reward worker loads: the embedded judge's path loads no HTTP client, server or Ray.

A reward worker that judges embedded imports ``judgebox.verl`` (or ``judgebox.trl``) cold, in every process
verl or TRL starts. Each test runs a fresh interpreter and reads its ``sys.modules``: the modules, not the
time (how long an import takes is this machine's load; which modules load is the code's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import judgebox

# The HTTP client and its wire schemas, the server, Ray: each loads only when an address asks for it
FOREIGN = ("httpx", "pydantic", "fastapi", "starlette", "uvicorn", "ray", "judgebox.server", "judgebox.client",
           "judgebox.wire", "judgebox.backends.server", "judgebox.backends.ray", "judgebox.backends.urls")

# Prints, as JSON, the modules loaded after each step: the import, verl's lookup of its function (by name,
# as its loader does), and one sample judged embedded (its score too, so a judge that failed cannot pass)
VERL_WORKER = """
import json, sys
steps = {}
import judgebox.verl
steps["import"] = sorted(sys.modules)
score = getattr(judgebox.verl, "default_compute_score")
steps["lookup"] = sorted(sys.modules)
answer = score("codecontests", "```python\\nprint(int(input()) * 2)\\n```", {"inputs": ["2"], "outputs": ["4"]})
steps["judged"] = sorted(sys.modules)
print(json.dumps({"steps": steps, "score": answer["score"], "verdict": answer["verdict"]}))
"""


def run_fresh(program: str) -> Any:
    env = {**os.environ, "PYTHONPATH": str(Path(judgebox.__file__).parent.parent), "JUDGEBOX_SLOTS": "1"}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def foreign(modules: list[str]) -> list[str]:
    return [name for name in modules if any(name == one or name.startswith(one + ".") for one in FOREIGN)]


def test_embedded_verl_scoring_loads_no_http_server_or_ray_module():
    """0.8-2.3 s here, as busy as the machine is: one interpreter, one slot, one sample."""
    worker = run_fresh(VERL_WORKER)
    assert (worker["score"], worker["verdict"]) == (1.0, "AC")
    assert {step: foreign(modules) for step, modules in worker["steps"].items()} == \
        {"import": [], "lookup": [], "judged": []}
    # the import itself loads none of the scorers: verl's lookup does, and the sandbox only the first sample
    assert "judgebox.verl.reward" not in worker["steps"]["import"]
    assert "judgebox.sandbox.slot" not in worker["steps"]["lookup"]


def test_the_trainers_reward_modules_load_no_http_server_or_ray_module():
    loaded = run_fresh("import json, sys, judgebox.trl, judgebox.rewards; print(json.dumps(sorted(sys.modules)))")
    assert foreign(loaded) == []
