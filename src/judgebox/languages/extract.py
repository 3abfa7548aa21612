"""Which part of a model's completion is the program, under each scoring profile."""

from __future__ import annotations

import re
import threading
import warnings

from markdown_it import MarkdownIt

from judgebox import languages

# CommonMark's block structure finds the fences: ``` or ~~~ of any length, closed only by a fence of the
# same kind at least as long, indented in a list item with the item's indentation removed, and left open to
# the end by a generation cut off mid-answer. Two rule sets are off. Raw HTML blocks: an answer between
# <answer> and </answer> lines would be one HTML block with no fence in it. Inline parsing: no fence is
# inline, and it is more than half of a whole parse's time.
# Past its nesting limit the parser drops the rest of the text, fences and all: under CommonMark's preset
# (20 levels, a list ten deep) a final answer after a deep list went unseen and an earlier block ran in its
# place. The limit here is markdown-it's default preset's (the parse stays a few hundred frames deep), and
# an answer nested that deep is none a reader can follow: it has no code (:func:`_fences`).
NESTING = 100
_MARKDOWN = MarkdownIt("commonmark", {"maxNesting": NESTING}).disable(["html_block", "inline"])
_CONTAINERS = frozenset({"blockquote_open", "bullet_list_open", "ordered_list_open", "list_item_open"})
# The parser builds its rule lists on first use, and not safely for two threads at once (one could see a
# list half built, and miss the fences): it is built here, once, on import.
_MARKDOWN.parse("```\n```\n")
_THINK_END = "</think>"
# A line that may open a fence: ``` or ~~~ after nothing but the marks of containers (blockquotes' >, list
# items' -, *, +, 1. and 1)) and indentation. Every CommonMark fence opens on such a line.
_OPENING = re.compile(r"^[ \t>*+\-.)0-9]*(?:```|~~~)", re.MULTILINE)
# A bare answer in a language other than Python is run when it has one of these: every C-family program
# has braces or semicolons, the scripting languages' calls have parentheses, their variables $ or =;
# sentences rarely have any, so only plain prose ("I cannot solve this.") is refused
_CODE_MARKS = frozenset("{}[]();=$")
_COMPILING = threading.Lock()  # warnings.catch_warnings swaps process-wide state: one compile at a time
# A bare Python answer larger than this is taken as code without compiling it here: the compiler's tree
# costs the judge's own process about 300 bytes a byte (a 2 MB answer, 600 MB and seconds under the lock
# above), and the sandbox's run of prose fails just as surely as no code scores nothing
COMPILE_CHECK_CHARS = 256 * 1024


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


def answer_code(completion: str, language: str, continues: str = "") -> str | None:
    """The program of the final answer, for the judgebox profile.

    The last non-blank fenced block tagged with the language (any of its names, any case: ``Python3``,
    ``py``, ``c++``); else the last non-blank untagged block. An answer with no fence at all is the program
    when it reads as one (:func:`_reads_as_program`; ``continues`` is the code it continues, HumanEval's
    prompt before a body). None when there is nothing to run: fences of other languages only, prose, an
    empty answer, or blocks nested past the parser's limit.
    """
    answer = final_answer(completion)
    target = languages.lookup(language)
    fences = _fences(answer)
    if fences is None:
        return None
    if not fences:
        return answer if answer.strip() and _reads_as_program(answer, continues, target) else None
    tagged, untagged = None, None
    for info, body in fences:
        if not body.strip():
            continue
        if not info:
            untagged = body
        elif target is not None and _same_language(info.split()[0], target):
            tagged = body
    return tagged if tagged is not None else untagged


def _fences(answer: str) -> list[tuple[str, str]] | None:
    """The (info string, content) of each fenced block, in order; None when the blocks nest to the parser's
    limit (a container opened there: the parse skipped what followed it). Text with no line that could open
    a fence (:data:`_OPENING`) has none and is not parsed: the parse costs about a microsecond a byte, more
    on lists, and a policy's runaway list of a hundred kilobytes would otherwise cost seconds."""
    if _OPENING.search(answer) is None:
        return []
    tokens = _MARKDOWN.parse(answer)
    if any(token.level >= NESTING - 1 and token.type in _CONTAINERS for token in tokens):
        return None
    return [(token.info.strip(), token.content) for token in tokens if token.type == "fence"]


def _reads_as_program(answer: str, continues: str, target: languages.LanguageSpec | None) -> bool:
    """Whether an answer without fences is a bare program rather than prose. For Python, exactly when it
    compiles (after the code it continues; past :data:`COMPILE_CHECK_CHARS`, always); for other languages,
    when it has a character of code (:data:`_CODE_MARKS`), since judging whether it builds needs the
    sandbox."""
    if target is not None and target.source.endswith(".py"):
        return _compiles(continues + answer)
    return not _CODE_MARKS.isdisjoint(answer)


def _compiles(source: str) -> bool:
    if len(source) > COMPILE_CHECK_CHARS:
        return True
    # compiling only parses and builds bytecode (nothing runs); its warnings (an invalid escape, `is` with a
    # literal) are the program's own, for its run to report, not the judge's log
    with _COMPILING, warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            compile(source, "<answer>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):  # ValueError: null bytes, on older Pythons
            return False
        except (RecursionError, MemoryError):  # nested deeper than the compiler (or its parser's stack) goes:
            return True  # code, not prose; the program's own run reports the failure
    return True


def _same_language(tag: str, target: languages.LanguageSpec) -> bool:
    """Same kind of source file: ``cpp`` fences hold code for every C++ standard, ``py`` for PyPy too."""
    spec = languages.lookup(tag)
    return spec is not None and spec.source == target.source
