"""Attacks on which part of a completion the judgebox profile runs (``answer_code``, a CommonMark parse): a
completion that makes the judge run other code than what a careful reader takes as its final answer, prose
that would count as code, and text that makes the parse drop the answer. The completions are in
``completions/``; each is extracted as the profile does and its program judged on A+B in the real sandbox.
What a correct judge gives: the final answer's program (so a right decoy before a wrong answer earns
nothing), no code where there is none, and every completion parsed in bounded time.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgebox import Case, Verdict
from judgebox.languages.extract import answer_code

COMPLETIONS = Path(__file__).parent / "completions"
A_PLUS_B = [Case.stdio("1 2", "3"), Case.stdio("20 22", "42")]


def _judged(judge, name: str, language: str = "python") -> Verdict | None:
    """The verdict of the program the profile finds in the completion ``name``; None: no code in it."""
    code = answer_code((COMPLETIONS / name).read_text(encoding="utf-8"), language)
    return None if code is None else judge.judge(code, A_PLUS_B, language=language).verdict


@pytest.mark.parametrize("name, language, expected", [
    # a right program, then fifty levels of list (past the parser's nesting limit, which then skipped the
    # rest of the completion), then a wrong final answer: the right decoy ran and earned the reward
    ("deep_list_decoy.md", "python", None),
    # a list twelve deep before the final answer (CommonMark's preset stops at ten): the answer was lost
    ("deep_list_answer.md", "python", Verdict.AC),
    ("crlf.md", "python", Verdict.AC),  # Windows line ends: the same program
    ("unclosed_last.md", "python", Verdict.WA),  # the last block, cut off, is the final answer, not the one before
    ("tilde_fence_holds_backticks.md", "python", Verdict.WA),  # a ``` fence inside a ~~~ block is its text
    ("prose_compiles.md", "python", Verdict.RE),  # "Yes" compiles as Python: it runs, and fails
])
def test_the_final_answer_is_what_runs(judge, name, language, expected):
    assert _judged(judge, name, language) == expected


@pytest.mark.slow  # about 3 s here: g++ starts to reject the prose
def test_prose_with_a_code_mark_builds_no_reward(judge):
    """A bare answer in C++ is run when it has a code-like character: prose with a parenthesis is a
    compile error, never a pass."""
    assert _judged(judge, "prose_with_parenthesis.md", "cpp") is Verdict.CE


@pytest.mark.xfail(strict=True, reason="known gap: markdown's raw HTML is not parsed (an <answer> line would "
                                       "swallow the fences after it), so a fence inside an HTML comment, which a "
                                       "rendered answer hides, is the one that runs")
def test_a_fence_hidden_in_an_html_comment_is_not_the_answer(judge):
    assert _judged(judge, "html_comment.md") is Verdict.WA


@pytest.mark.xfail(strict=True, reason="known gap: the reasoning rule reads any <think> without a </think> as an "
                                       "unfinished thought, so a right program that handles the tag has no code")
def test_a_program_that_handles_a_think_tag_is_its_code(judge):
    assert _judged(judge, "think_in_code.md") is Verdict.AC


@pytest.mark.xfail(strict=True, reason="known gap: the answer is what follows the last </think>, here the end of a "
                                       "string in the program, so a right program has no code")
def test_a_program_that_handles_a_think_end_tag_is_its_code(judge):
    assert _judged(judge, "think_end_in_code.md") is Verdict.AC


@pytest.mark.parametrize("depth", [100, 2000])
@pytest.mark.parametrize("nested", ["lists", "quotes", "both"])
def test_nesting_past_the_limit_is_no_code_and_no_recursion_error(nested, depth):
    """Lists and quotes nested past the parser's limit, then an answer: no code (the parse skipped what
    followed the limit), and no RecursionError however deep."""
    opened = {"lists": "".join("  " * i + "- a\n" for i in range(depth)), "quotes": "> " * depth + "a\n",
              "both": "- > " * (depth // 2) + "a\n"}[nested]
    assert answer_code(opened + "\n\n```python\nprint(3)\n```\n", "python") is None


def test_thousands_of_fences_take_the_last_and_parse_in_bounded_time():
    """Two thousand fenced blocks, the right one last: found, in well under a second of parsing each KB."""
    text = "```python\nprint(0)\n```\n" * 2000 + "```python\nprint(42)\n```\n"
    started = time.process_time()
    assert answer_code(text, "python") == "print(42)\n"
    assert time.process_time() - started < 5  # about 0.1 s idle; 5 s allows a loaded machine


def test_a_huge_bare_answer_costs_the_judges_process_little_memory():
    """A 3 MB bare Python answer (one long expression): compiling it to tell code from prose cost the judge's
    own process about 900 MB and seconds (measured here: 2 MB, +614 MB, 3.1 s of CPU). Past a bound it is
    taken as code unchecked, for the sandbox to run. Measured in a fresh process, whose peak is its own."""
    probe = ("import resource\nfrom judgebox.languages.extract import answer_code\n"
             "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
             "assert answer_code('x = [' + '1,' * 1500000 + ']\\n', 'python') is not None\n"
             "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n")
    grown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    assert int(grown.stdout) < 100, f"the extraction's peak grew by {grown.stdout.strip()} MB"
