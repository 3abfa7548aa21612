"""Which part of a model's completion is the program, under each scoring profile."""

from __future__ import annotations

import re

from .. import languages

# A fence opens at the start of a line: ``` then an optional info string ("python", "Python3 title=x");
# it closes at the next line that starts with ``` or, for a generation cut off mid-answer, at the end.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n(.*?)(?:^[ \t]*```|\Z)", re.MULTILINE | re.DOTALL)
_THINK_END = "</think>"


def verl_solution(completion: str) -> str | None:
    """verl 0.9.1's sandbox rule, kept for parity (its quirks are documented in judgebox.verl):

    the text after the last ```python up to the next ``` (or the end); else the first plain fenced block,
    dropping a first line that is purely alphabetic (a language tag); else None (no code block).
    """
    if "```python" in completion:
        return completion.split("```python")[-1].split("```")[0]
    if "```" not in completion:
        return None
    block = completion.split("```")[1]
    tag, newline, rest = block.partition("\n")
    return rest if newline and tag.strip().isalpha() else block


def final_answer(completion: str) -> str:
    """The completion after its reasoning: what follows the last ``</think>``. An opened but unclosed
    ``<think>`` means the generation ended while still thinking: there is no answer."""
    if _THINK_END in completion:
        return completion.rsplit(_THINK_END, 1)[1]
    if "<think>" in completion:
        return ""
    return completion


def answer_code(completion: str, language: str) -> str | None:
    """The program of the final answer, for the judgebox profile.

    The last fenced block tagged with the language (any of its names, any case: ``Python3``, ``py``,
    ``c++``); else the last untagged block; else, when the answer has no fence at all, the whole answer.
    None when there is nothing to run (fences of other languages only, or an empty answer).
    """
    answer = final_answer(completion)
    target = languages.lookup(language)
    tagged, untagged = None, None
    for match in _FENCE.finditer(answer):
        info, body = match.group(1).strip(), match.group(2)
        if not info:
            untagged = body
        elif target is not None and _same_language(info.split()[0], target):
            tagged = body
    if tagged is not None or untagged is not None:
        code = tagged if tagged is not None else untagged
    elif "```" in answer:
        code = None
    else:
        code = answer
    return code if code is not None and code.strip() else None


def _same_language(tag: str, target: languages.LanguageSpec) -> bool:
    """Same kind of source file: ``cpp`` fences hold code for every C++ standard, ``py`` for PyPy too."""
    spec = languages.lookup(tag)
    return spec is not None and spec.source == target.source
