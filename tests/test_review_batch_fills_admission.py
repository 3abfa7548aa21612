"""Attack: one /judge/batch request locks every other client out of `judgebox serve`.

Each submission of a batch is its own Group in Admission._in_flight, and the in-flight bound
(max_waiting = 4096) is the same number as a batch's maximum length (BatchRequest: 4096 submissions). So
one batch of 4096 slow submissions fills the bound by itself: every other client's /run_code or /judge
is answered 504 "too many requests in flight" at once, for as long as the batch's submissions are in flight
(up to --max-wait each; resend the batch to keep it up). The "submissions of one batch share one tenant"
fairness never gets a chance to apply.

Run: .venv/bin/python -m pytest tests/review_attacks/test_batch_fills_admission.py   (about 15 s, 1 worker)
Judge gave: the victim's one-line /run_code got HTTP 504 while the batch was in flight.
A correct judge gives the victim 200 with its result within about one case's time (the fair share), and
never lets one request take the whole in-flight budget.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from conftest import Server

SLOW = "while True:\n    pass\n"


@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_one_batch_does_not_lock_other_clients_out():
    with Server("--workers", "1", "--max-wait", "4") as server:
        submissions = [{"code": SLOW, "cases": [{"kind": "stdio", "stdin": "", "expected_output": ""}],
                        "limits": {"cpu_time": 0.2}} for _ in range(4096)]

        def attacker():
            try:
                with httpx.stream("POST", server.url + "/judge/batch", json={"submissions": submissions},
                                  timeout=60) as response:
                    for _ in response.iter_lines():
                        pass
            except httpx.HTTPError:
                pass

        thread = threading.Thread(target=attacker, daemon=True)
        thread.start()
        time.sleep(2.0)  # the batch is parsed and its submissions are queued
        victim = httpx.post(server.url + "/run_code", json={"code": "print(1)", "language": "python"}, timeout=30)
        thread.join(timeout=60)
        assert victim.status_code == 200, (victim.status_code, victim.text[:300])
        assert victim.json()["run_result"]["stdout"] == "1\n"
