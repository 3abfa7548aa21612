"""Which part of a model's completion is judged: the judgebox profile's fenced blocks (a CommonMark parse), its
rule for answers with no fence (a bare program runs, prose is no code), and the reasoning before ``</think>``."""

from __future__ import annotations

import warnings

import pytest

from judgebox.languages.extract import answer_code

SUM = "a, b = map(int, input().split())\nprint(a + b)"
CPP = "#include <cstdio>\nint main() { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\\n\", a + b); }"


@pytest.mark.parametrize("text, language, expected", [
    (f"```python\n{SUM}\n```", "python", SUM + "\n"),
    (f"```Python3\n{SUM}\n```", "python", SUM + "\n"),
    (f"```py\n{SUM}\n```", "python", SUM + "\n"),
    (f"<think>```python\nprint(1)\n```</think>```\n{SUM}\n```", "python", SUM + "\n"),
    (f"```python\nprint(0)\n```\nthen\n```python\n{SUM}\n```", "python", SUM + "\n"),
    (f"```python\n{SUM}\n", "python", SUM + "\n"),  # a generation cut off before the closing fence
    (f"```text\n3\n```\n```python\n{SUM}\n```\n```text\n4\n```", "python", SUM + "\n"),
    ("<think>still thinking ```python\nprint(1)\n```", "python", None),  # no answer yet
    ("```bash\necho 3\n```", "python", None),  # only another language's code
    ("```c++\nint main() {}\n```", "cpp20", "int main() {}\n"),
    ("```js\nconsole.log(1)\n```", "javascript", "console.log(1)\n"),
])
def test_the_answer_is_the_final_fenced_block_of_the_language(text, language, expected):
    assert answer_code(text, language) == expected


# Fences the line-by-line pattern misread, each as a user found it

def test_a_tilde_fence_is_its_code_not_the_whole_answer():
    assert answer_code(f"Here it is:\n~~~python\n{SUM}\n~~~\nIt reads two numbers.", "python") == SUM + "\n"


def test_a_longer_fence_holds_its_code_and_shorter_fences_inside_it():
    quoting = "s = '''\n```\n'''\nprint(len(s))\n"
    assert answer_code(f"````python\n{SUM}\n````", "python") == SUM + "\n"
    assert answer_code(f"`````python\n{quoting}`````\n", "python") == quoting


def test_a_fence_in_a_list_item_loses_the_item_indentation():
    text = "1. Read the numbers:\n   ```python\n   def f():\n       return 1\n   ```\n2. Print f()."
    assert answer_code(text, "python") == "def f():\n    return 1\n"


def test_a_fence_between_answer_tags_is_found():
    # an HTML-looking line starts no HTML block that would swallow the fence
    assert answer_code(f"<answer>\n```python\n{SUM}\n```\n</answer>", "python") == SUM + "\n"


def test_a_blank_final_block_does_not_hide_the_code_before_it():
    assert answer_code(f"```python\n{SUM}\n```\nand\n```python\n\n```", "python") == SUM + "\n"
    assert answer_code("```python\n  \n```", "python") is None


# Answers with no fence: a bare program runs, prose is no code (as fences of other languages only are)

@pytest.mark.parametrize("prose", ["I cannot solve this problem.", "The answer is 42, use a `dict`.",
                                   "Sort it (twice), then print the middle one."])
def test_a_prose_answer_is_no_code(prose):
    assert answer_code(prose, "python") is None


def test_a_bare_python_program_runs_whole():
    assert answer_code(SUM, "python") == SUM
    assert answer_code(f"<think>plan</think>{SUM}", "pypy") == SUM


def test_a_bare_body_runs_when_it_compiles_after_the_prompt_it_continues():
    prompt, body = 'def add(a, b):\n    """a plus b"""\n', "    return a + b\n"
    assert answer_code(body, "python", prompt) == body
    assert answer_code(body, "python") is None  # alone it is no Python program
    assert answer_code("I cannot answer.", "python", prompt) is None


def test_compiling_a_bare_answer_warns_nobody():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert answer_code("import re\nprint(re.findall('\\d', input()) is 1)\n", "python") is not None
    assert seen == []


@pytest.mark.parametrize("nested", ["x = " + "not " * 100_000 + "1", "x = " + "a + " * 5_000 + "1"])
def test_a_bare_answer_nested_past_the_compilers_depth_is_code_not_an_exception(nested):
    # the parser's stack runs out (MemoryError) or the compiler's recursion does: the run reports it
    assert answer_code(nested, "python") == nested


@pytest.mark.parametrize("language", ["cpp", "java", "bash", "ruby"])
def test_other_languages_bare_code_runs_and_plain_prose_is_no_code(language):
    code = {"cpp": CPP, "java": "class Main { public static void main(String[] a) {} }",
            "bash": "read a b\necho $((a + b))", "ruby": "puts gets.split.map(&:to_i).sum"}[language]
    assert answer_code(code, language) == code
    assert answer_code("I am sorry, but I cannot write this program.", language) is None
