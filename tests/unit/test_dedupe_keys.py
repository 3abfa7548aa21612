"""Dedupe's keys and result cache (judgebox.judging.dedupe) without a judge: every field that decides a verdict is in
the key, values the checker tells apart have keys apart, the cache evicts LRU by entries and bytes, and SE
results, exceptions and abandoned judgements reach their waiters and are never kept (tests/judging/test_dedupe.py
judges for real)."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

import judgebox
from judgebox import Case, CaseResult, JudgeResult, Limits, Submission, Verdict, checkers
from judgebox.checkers import Checker, CheckerProgram, Checking, Interactor
from judgebox.judging.dedupe import Abandoned, ResultCache, retained_bytes, submission_key

BASE_LIMITS = Limits(cpu_time=4.0, wall_time=20.0, memory_mb=256, output_bytes=2 * 1024 * 1024, processes=32,
                     file_size_bytes=4 * 1024 * 1024, open_files=64, returned_output_bytes=4096, run_time=10.0)


BASE = Submission(
    code="print(input())",
    cases=(Case("stdio", stdin=b"1\n", expected_output="1\n", fn_name="f", args=(1, 2), expected_value=[1],
                assert_code="assert True", limits=BASE_LIMITS, io="stdio"),),
    language="python", limits=BASE_LIMITS,
    checker=Checking(CheckerProgram("python", "print(1)", "codeforces-python", BASE_LIMITS),
                     checkers.make("value", epsilon=0.5)),
    stop_on_first_failure=False,
    interactor=Interactor("cpp", "int main() {}", "testlib"))


# One other value for every field of every record a submission holds. A field added to one of them later
# has no entry here, and the test below says so: give it one, and make sure the key covers it.
OTHER = {
    Submission: {"code": "print(input() * 2)", "cases": (Case.stdio("2\n", "2\n"),), "language": "cpp",
                 "limits": Limits(), "checker": checkers.DEFAULT, "stop_on_first_failure": True, "interactor": None},
    Case: {"kind": "call", "stdin": b"1", "expected_output": "1", "fn_name": "g", "args": (1, 3),
           "expected_value": (1,), "assert_code": "assert 1", "limits": None, "io": "file"},
    Limits: {"cpu_time": 4.5, "wall_time": None, "memory_mb": 512, "output_bytes": 3 * 1024 * 1024,
             "processes": 33, "file_size_bytes": 5 * 1024 * 1024, "open_files": 65,
             "returned_output_bytes": 4097, "run_time": None},
    Checking: {"output": checkers.make("tokens"), "value": checkers.make("value")},
    Checker: {"name": "float", "options": (("epsilon", 0.25),)},
    CheckerProgram: {"language": "cpp", "code": "print(2)", "protocol": "testlib", "limits": None},
    Interactor: {"language": "c", "code": "int main() { return 0; }", "protocol": "codeforces-python"},
}


def _at(cls: type) -> list[tuple[str, object, object]]:
    """Where ``BASE`` holds a record of ``cls``: (where, the record, a function putting another in its place)."""
    case, checking = BASE.cases[0], BASE.checker

    def in_case(**change):
        return dataclasses.replace(BASE, cases=(dataclasses.replace(case, **change),))

    def in_checking(**change):
        return dataclasses.replace(BASE, checker=dataclasses.replace(checking, **change))

    return {
        Submission: [("submission", BASE, lambda record: record)],
        Case: [("case", case, lambda record: dataclasses.replace(BASE, cases=(record,)))],
        Limits: [("submission limits", BASE.limits, lambda record: dataclasses.replace(BASE, limits=record)),
                 ("case limits", case.limits, lambda record: in_case(limits=record)),
                 ("checker limits", checking.output.limits, lambda record: in_checking(
                     output=dataclasses.replace(checking.output, limits=record)))],
        Checking: [("checking", checking, lambda record: dataclasses.replace(BASE, checker=record))],
        Checker: [("value checker", checking.value, lambda record: in_checking(value=record))],
        CheckerProgram: [("checker program", checking.output, lambda record: in_checking(output=record))],
        Interactor: [("interactor", BASE.interactor, lambda record: dataclasses.replace(BASE, interactor=record))],
    }[cls]


def _with(record: object, name: str, value: object) -> object:
    """A copy of ``record`` with one field changed, past its validation: the key must cover a field whatever
    value it holds."""
    copy = dataclasses.replace(record)
    object.__setattr__(copy, name, value)
    return copy


def _result(verdict: Verdict = Verdict.AC, stdout: bytes = b"") -> JudgeResult:
    return JudgeResult(verdict, (CaseResult(verdict, stdout_raw=stdout, stdout_length=len(stdout)),), 1)


def _settle(cache: ResultCache, key: str, result: JudgeResult) -> None:
    future, owner = cache.claim(key)
    assert owner
    future.set_result(result)


def test_changing_any_field_changes_the_key():
    base = submission_key(BASE)
    assert submission_key(dataclasses.replace(BASE)) == base  # equal records, one key
    seen = {base: "base"}
    for cls, others in OTHER.items():
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields == set(others), f"{cls.__name__}: fields {sorted(fields ^ set(others))} need an entry in OTHER"
        for where, record, put in _at(cls):
            for name, value in others.items():
                assert getattr(record, name) != value or type(getattr(record, name)) is not type(value), \
                    f"OTHER[{cls.__name__}][{name!r}] is the base's own value"
                key = submission_key(put(_with(record, name, value)))
                label = f"{where}.{name}"
                assert key not in seen, f"changing {label} gave the key of {seen.get(key)}"
                seen[key] = label
    assert len(seen) == 1 + sum(len(others) * len(_at(cls)) for cls, others in OTHER.items())


def test_the_judges_settings_are_part_of_its_keys():
    assert submission_key(BASE, judgebox.SandboxConfig()) != submission_key(BASE)
    assert submission_key(BASE, judgebox.SandboxConfig()) != submission_key(BASE, judgebox.SandboxConfig(uid_base=1))


@pytest.mark.parametrize("values", [
    [1, 1.0, True, "1", b"1", [1], (1,), {1}, frozenset({1}), {"1": 1}, None, 0.0, -0.0, False, 0, ""],
    [{"a": 1}, {"a": 1.0}, {"a": True}, {1: "a"}, {1.0: "a"}, [[1], 2], [1, [2]], [1, 2], (1, 2)],
    [2 ** 64, 2 ** 64 + 1, -(2 ** 64), float(2 ** 64), 10 ** 5000, "x" * 3, ["x"] * 3]])
def test_values_the_checker_tells_apart_have_keys_apart(values):
    keys = [submission_key(dataclasses.replace(BASE, cases=(Case.call("f", [], value),))) for value in values]
    assert len(set(keys)) == len(values)


def test_equal_dicts_and_sets_in_any_order_have_one_key():
    one = [{"b": [1, {"y": 2, "x": 1}], "a": {3, 1, 2}}]
    other = [{"a": {2, 3, 1}, "b": [1, {"x": 1, "y": 2}]}]
    # (as expected values: a set is a Python value the judge compares, but no argument, which crosses as JSON)
    assert submission_key(dataclasses.replace(BASE, cases=(Case.call("f", [], one),))) == \
        submission_key(dataclasses.replace(BASE, cases=(Case.call("f", [], other),)))


def test_eviction_by_entries_is_least_recently_used_first():
    cache = ResultCache(max_entries=2)
    for key in "ab":
        _settle(cache, key, _result())
    assert cache.claim("a")[1] is False  # a hit: "a" is now the most recently used
    _settle(cache, "c", _result())
    assert cache.claim("b")[1] is True  # "b" was dropped
    assert cache.claim("a")[1] is False and cache.claim("c")[1] is False
    stats = cache.stats()
    assert (stats["entries"], stats["evictions"], stats["hits"], stats["misses"]) == (2, 1, 3, 4)


def test_eviction_by_bytes_counts_the_output_kept():
    size = retained_bytes(_result(stdout=b"x" * 10_000))
    cache = ResultCache(max_bytes=2 * size + 10)
    for key in "abc":
        _settle(cache, key, _result(stdout=b"x" * 10_000))
    stats = cache.stats()
    assert (stats["entries"], stats["bytes"], stats["evictions"]) == (2, 2 * size, 1)
    assert cache.claim("a")[1] is True and cache.claim("c")[1] is False
    small = ResultCache(max_bytes=size - 1)
    _settle(small, "big", _result(stdout=b"x" * 10_000))  # larger than the whole cache: not kept
    assert small.stats()["entries"] == 0 and small.claim("big")[1] is True


def test_se_results_and_exceptions_reach_the_waiters_and_are_not_kept():
    cache = ResultCache()
    for settle in (lambda f: f.set_result(_result(Verdict.SE)), lambda f: f.set_exception(RuntimeError("lost"))):
        owned, owner = cache.claim("k")
        waiting, waiter = cache.claim("k")
        assert (owner, waiter) == (True, False)
        settle(owned)
        assert waiting.exception() is owned.exception()
        if owned.exception() is None:
            assert waiting.result() is owned.result()
        again, owner = cache.claim("k")
        assert owner  # judged again
        again.set_exception(RuntimeError("this test judges nothing"))
    stats = cache.stats()
    assert (stats["entries"], stats["not_kept"], stats["misses"], stats["shared_in_flight"]) == (0, 4, 4, 2)


def test_an_owner_that_goes_away_lets_a_waiter_judge():
    """KeyboardInterrupt in the owner's thread: the waiter does not hang, and judges the key itself."""
    cache, started, judged = ResultCache(), threading.Event(), []

    def owner() -> None:
        def interrupted() -> JudgeResult:
            started.set()
            time.sleep(0.2)  # the waiter joins meanwhile
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            cache.run("k", interrupted)

    thread = threading.Thread(target=owner)
    thread.start()
    started.wait()
    while cache.stats()["in_flight"] == 0:
        time.sleep(0.01)
    result = cache.run("k", lambda: judged.append(1) or _result())
    thread.join()
    assert result.verdict is Verdict.AC and judged == [1]
    stats = cache.stats()
    assert (stats["misses"], stats["shared_in_flight"], stats["not_kept"], stats["entries"]) == (2, 1, 1, 1)


def test_a_waiter_giving_up_cancels_nothing_of_the_owners():
    cache = ResultCache()
    owned, _ = cache.claim("k")
    waiting, _ = cache.claim("k")
    assert waiting.cancel()
    owned.set_result(_result())
    assert cache.claim("k")[1] is False and cache.stats()["entries"] == 1


def test_an_abandoned_judgement_tells_its_waiters_to_claim_again():
    cache = ResultCache()
    owned, _ = cache.claim("k")
    waiting, _ = cache.claim("k")
    owned.cancel()
    with pytest.raises(Abandoned):
        waiting.result()
    assert cache.claim("k")[1] is True
    with pytest.raises(judgebox.InvalidInput):
        ResultCache(max_entries=-1)
