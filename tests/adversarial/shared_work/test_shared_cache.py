"""One verdict cache shared by two embedded judges (``Judge(dedupe=cache)``): a caller of judge B that waits
on judge A's judgement of the same submission must not take A's jobs into B's pool. It did: B's waiter lent
its standing to A's group in B's pool, a B slot then took that group from its queue and its thread died on
A's bookkeeping (a ValueError), and so did A's: both callers, and every later caller of either judge, waited
forever. What a correct judge gives: both callers get the verdict, and both judges go on judging.
"""

from __future__ import annotations

from judgebox import Case, Judge, Verdict
from judgebox.judging.dedupe import ResultCache
from support.background import judge_in_background, wait_for

BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < {seconds}:\n    pass\nprint(3)"
CASES = [Case.stdio("", "3")]


def test_a_waiter_on_another_judges_judgement_gets_it_and_both_judges_go_on():
    cache = ResultCache()
    with Judge(slots=1, dedupe=cache) as a, Judge(slots=1, dedupe=cache) as b:
        ahead, _ = judge_in_background(a, BUSY.format(seconds=1) + "  # ahead", CASES)
        wait_for(lambda: a._pool.busy, "A's first case running")
        owner, owned = judge_in_background(a, BUSY.format(seconds=0.2), CASES)  # queued in A
        wait_for(lambda: cache.stats()["in_flight"] == 2, "A holding the shared judgement")
        waiter, waited = judge_in_background(b, BUSY.format(seconds=0.2), CASES)
        wait_for(lambda: cache.stats()["shared_in_flight"] == 1, "B's caller waiting on A's judgement")
        for thread in (ahead, owner, waiter):
            thread.join(60)
            assert not thread.is_alive(), "a caller never got its answer"
        assert owned["result"].verdict is Verdict.AC and waited["result"] is owned["result"]
        for judge in (a, b):  # every slot thread is alive: each judge still judges
            assert judge.judge("print(3)", CASES).verdict is Verdict.AC
