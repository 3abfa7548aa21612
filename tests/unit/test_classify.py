"""The pure pieces of the judge-sandbox boundary: the typed protocol and the one verdict classifier.

No sandbox runs here: these pin the rules every entry point (judge(), /judge, /run_code, verl) shares.
"""

from __future__ import annotations

import pytest

from judgebox import Case, Verdict, languages
from judgebox.checkers import lines, numbers, tokens
from judgebox.checkers.programs import blame, read_checker_run, verdict_of_testlib
from judgebox.checkers.result import CheckResult
from judgebox.judging.classify import RAN, classify
from judgebox.judging.interactive import verdict
from judgebox.languages import get as language
from judgebox.sandbox.inside import protocol
from judgebox.sandbox.outcome import RunOutcome

PYTHON, C, JAVA = languages.get("python"), languages.get("c"), languages.get("java")
STDIO = Case.stdio("", "3\n")


def ran(**fields) -> RunOutcome:
    return RunOutcome(**{"exit_code": 0, "stdout": b"3\n", "stdout_length": 2, **fields})


class TestProtocol:
    def test_a_reply_round_trips_and_keeps_zero_exit_codes(self):
        reply = protocol.RunReply(wall=0.1, cpu=0.05, memory=10, exit_code=0, started=True,
                                  notes=[protocol.RunNote(protocol.Note.COMPILE_ERROR, "x").to_wire()])
        again = protocol.RunReply.from_wire(reply.to_wire())
        assert again == reply and again.exit_code == 0
        assert again.note() == protocol.RunNote(protocol.Note.COMPILE_ERROR, "x")

    def test_a_reply_with_an_unknown_field_is_refused(self):
        with pytest.raises(ValueError):
            protocol.RunReply.from_wire({"wall": 1.0, "verdict": "AC"})

    def test_judge_only_descriptors_are_the_report_token_tests_and_control(self):
        assert set(protocol.JUDGE_ONLY) == {protocol.Fd.REPORT, protocol.Fd.TOKEN, protocol.Fd.TESTS,
                                            protocol.Fd.CONTROL}
        assert protocol.Fd.PROGRAM not in protocol.JUDGE_ONLY and protocol.Fd.STDOUT not in protocol.JUDGE_ONLY

    def test_note_details_are_bounded(self):
        wire = protocol.RunNote(protocol.Note.SETUP_FAILED, "x" * 100_000).to_wire()
        assert len(wire["detail"]) == protocol.NOTE_DETAIL_CHARS


class TestClassify:
    @pytest.mark.parametrize("outcome, verdict", [
        (ran(system_error="boom", output_limit_exceeded=True), Verdict.SE),
        (ran(compile_error="bad", out_of_memory=True), Verdict.CE),
        (ran(output_limit_exceeded=True, out_of_memory=True), Verdict.OLE),
        (ran(out_of_memory=True, stopped="cpu"), Verdict.MLE),
        (ran(stopped="wall", exit_code=None, signal=9), Verdict.TLE),
        (ran(exit_code=1), Verdict.RE),
        (ran(), Verdict.AC),
        (ran(stdout=b"4\n"), Verdict.WA),
    ])
    def test_the_order_judge_failures_build_limits_answer(self, outcome, verdict):
        assert classify(outcome, PYTHON, STDIO).verdict is verdict

    def test_a_bare_run_is_ran_or_its_failure(self):
        assert classify(ran(), C) == RAN
        assert classify(ran(exit_code=3), C).verdict is Verdict.RE
        assert classify(ran(stopped="cpu"), C).verdict is Verdict.TLE

    def test_memory_error_is_mle_only_where_the_language_declares_it(self):
        python_oom = ran(exit_code=1, stderr=b"Traceback (most recent call last):\n  ...\nMemoryError\n")
        assert classify(python_oom, PYTHON, STDIO).verdict is Verdict.MLE
        assert classify(python_oom, C, STDIO).verdict is Verdict.RE  # a C program that prints the word
        java_oom = ran(exit_code=1, stderr=b'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n'
                                           b"\tat Main.main(Main.java:3)\n")
        assert classify(java_oom, JAVA, STDIO).verdict is Verdict.MLE
        assert classify(ran(exit_code=1, stderr=b"print('MemoryError')\n"), PYTHON, STDIO).verdict is Verdict.RE

    def test_assert_cases_pass_only_with_the_token(self):
        case = Case.asserts("assert f() == 1")
        assert classify(ran(token_ok=True, harness=b"asserts\n"), PYTHON, case).verdict is Verdict.AC
        assert classify(ran(harness=b"asserts\n"), PYTHON, case).verdict is Verdict.WA  # clean exit, no token
        assert classify(ran(harness=b"assertion-failed\n", exit_code=1), PYTHON, case).message == "assertion failed"

    def test_call_values_and_missing_functions(self):
        case = Case.call("f", [1], [1, 2])
        assert classify(ran(token_ok=True, harness=b'{"value": [1, 2]}\n'), PYTHON, case).verdict is Verdict.AC
        assert classify(ran(token_ok=True, harness=b'{"value": [2, 1]}\n'), PYTHON, case).verdict is Verdict.WA
        deep = b'{"value": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        assert classify(ran(token_ok=True, harness=deep), PYTHON, case).verdict is Verdict.WA  # never SE
        missing = classify(ran(exit_code=1, missing_function=True), PYTHON, case)
        assert missing.verdict is Verdict.RE and "'f'" in missing.message


class TestCheckersOnBytes:
    def test_tokens_are_compared_across_chunk_edges(self, monkeypatch):
        import judgebox.checkers as checkers

        monkeypatch.setattr(checkers.streams, "CHUNK", 3)
        assert tokens(b"12345 6\n789", "12345 6 789").verdict is Verdict.AC
        assert tokens(b"12345 6\n78", "12345 6 789").verdict is Verdict.WA
        assert "more tokens than expected" in tokens(b"1 2 3 4", "1 2 3").message

    def test_numbers_and_lines_take_bytes(self):
        assert numbers(b"0.3333333\n", "0.333333").verdict is Verdict.AC
        assert numbers(b"1000000001", "1000000000").verdict is Verdict.WA
        assert lines(b"a  \nb\n\n\n", "a\nb").verdict is Verdict.AC
        assert lines(b"a b\n", "a\nb").verdict is Verdict.PE


class TestReturnedValues:
    """The wire form of a call case's returned value (sandbox/inside/returned.py)."""

    @staticmethod
    def judged(value, expected) -> Verdict:
        from judgebox.sandbox.inside import returned

        outcome = ran(token_ok=True, harness=returned.dumps(value))
        return classify(outcome, PYTHON, Case.call("f", [], expected)).verdict

    @pytest.mark.parametrize("value, expected", [
        ([1, 2], [1, 2]), ((1, 2), [1, 2]), ({1: "a"}, {1: "a"}), ({1: "a"}, {"1": "a"}),
        pytest.param(10 ** 5000, 10 ** 5000, id="big-int"),
        ({1, 2}, {2, 1}), (b"ab", b"ab"), (1 + 2j, 1 + 2j), ({(1, 2): 3}, {(1, 2): 3}), (0.1 + 0.2, 0.3),
        ([{"k": {3, 4}}], [{"k": {4, 3}}]),
    ])
    def test_honest_answers_pass(self, value, expected):
        assert self.judged(value, expected) is Verdict.AC

    @pytest.mark.parametrize("value, expected", [
        ({1, 2}, [1, 2]), (frozenset("ab"), ["a", "b"]), (b"abc", "abc"), ("abc", b"abc"), (True, 1),
        ({"__int__": "ff"}, 255), ({"__set__": [1]}, {1}), ([{"__bytes__": "YQ=="}], [b"a"]),
        pytest.param(10 ** 5000 + 1, 10 ** 5000, id="big-int-off-by-one"),
    ])
    def test_near_misses_and_forged_tags_fail(self, value, expected):
        assert self.judged(value, expected) is Verdict.WA

    def test_an_object_that_is_not_data_equals_nothing(self):
        class Agreeable:
            def __eq__(self, other):
                return True

        assert self.judged(Agreeable(), "anything") is Verdict.WA


# The testlib convention on synthetic checker outcomes: exit codes, points, fail, and whom a failure blames
# (tests/checkers/test_checker_programs.py runs real checkers).

@pytest.mark.parametrize(("exit_code", "verdict"), [(0, Verdict.AC), (1, Verdict.WA), (2, Verdict.PE)])
def test_testlib_exit_codes(exit_code, verdict):
    assert verdict_of_testlib(exit_code, None, b"msg\n") == CheckResult(verdict, "msg")


def test_testlib_fail_is_no_verdict_until_blamed():
    """testlib's FAIL is within an output's reach (ensuref, beating the jury): no verdict by itself, but a
    failure whose fault the re-run on the expected answer decides (WA if the checker judges it, else SE)."""
    said = verdict_of_testlib(3, None, b"FAIL jury is wrong")
    assert isinstance(said, str) and "FAIL" in said
    assert blame(said, CheckResult(Verdict.AC)).verdict is Verdict.WA
    assert blame(said, verdict_of_testlib(3, None, b"FAIL jury is wrong")).verdict is Verdict.SE


@pytest.mark.parametrize(("exit_code", "signal", "stderr"), [
    (5, None, b""), (None, 11, b""),
    (7, None, b"points 1.5 too many"), (7, None, b"points nan"), (7, None, b"no points at all")])
def test_testlib_failures_are_no_verdict(exit_code, signal, stderr):
    assert isinstance(verdict_of_testlib(exit_code, signal, stderr), str)


def test_testlib_points():
    assert verdict_of_testlib(7, None, b"points 0.25 partly") == CheckResult(Verdict.WA, "points 0.25 partly", 0.25)
    assert verdict_of_testlib(7, None, b"points 1").verdict is Verdict.AC


@pytest.mark.parametrize("protocol", ["testlib", "codeforces-python"])
def test_the_judges_failure_in_a_checker_run_is_se(protocol):
    said = read_checker_run(protocol, RunOutcome(system_error="the worker process died"))
    assert said.verdict is Verdict.SE and "died" in said.message


def test_blame_falls_on_the_output_only_if_the_checker_judges_the_answer():
    assert blame("FAIL x", CheckResult(Verdict.AC)).verdict is Verdict.WA
    assert blame("FAIL x", CheckResult(Verdict.WA)).verdict is Verdict.WA
    assert blame("FAIL x", "FAIL y").verdict is Verdict.SE
    assert blame("FAIL x", CheckResult(Verdict.SE, "the slot died")).verdict is Verdict.SE


# An interactive run's outcome: the supervisor's account counts only with the run's token.

def test_an_interactive_run_without_its_account_is_se():
    """The supervisor's account is believed only with the run's token; without it the judge failed."""
    forged = RunOutcome(exit_code=0, harness=b'{"solution": [0, null]}', token_ok=False)
    assert verdict(forged, language("python")).verdict is Verdict.SE
