"""Review (issue 10, round 1): the Rust split harness's signature reader (``rust_split/signatures.py``) runs
on the judge's host, in the judge's process, on the program's text, with no time limit of its own.

Two weaknesses of the way it finds where a top-level item begins (``_ends_item`` looks at the first 12
tokens of the item; an item whose head holds ``use``/``const``/``static``/``let`` and no ``fn`` never ends):

- cost: once such an item has been seen, every later top-level ``fn`` re-reads every token from that item
  on, so reading is quadratic in the program's length. Measured on this machine (one core): 5,000
  one-line functions after ``mod m { use std::fmt::{self, Write, Debug, Display}; }`` take 3.6 s, 10,000
  take 18 s, 20,000 (a 290 KB program) 96 s, against 0.1-0.5 s without the module; a 4 MiB program,
  which judgebox accepts, holds the judge's interpreter for hours. The test counts the tokens the reader
  slices instead of timing it;
- correctness: the qualifiers of a later function are read over that whole stretch, so an honest
  program with a small module holding an ``unsafe fn`` has its solution refused ("it is unsafe"): the
  tests do not compile against it, CE for a correct answer.
"""

from __future__ import annotations

from judgebox import Case, Limits, Verdict
from judgebox.languages.rust_split import signatures

# an item of 12+ tokens before any "fn" whose head holds "use": the reader never sees it end
UNENDING = "mod m { use std::fmt::{self, Write, Debug, Display}; }\n"
SOLUTION = ("fn intersperse(numbers: Vec<u32>, delimeter: u32) -> Vec<u32> {\n    let mut res = vec![];\n"
            "    for (i, x) in numbers.iter().enumerate() {\n        if i > 0 { res.push(delimeter); }\n"
            "        res.push(*x);\n    }\n    res\n}\n")
TESTS = ("#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_intersperse() {\n"
         "        assert!(intersperse(vec![], 7) == vec![]);\n"
         "        assert!(intersperse(vec![5, 6, 3, 2], 8) == vec![5, 8, 6, 8, 3, 8, 2]);\n    }\n}\n")


class CountingTokens(list):
    """The lexer's tokens, counting how many the reader takes by slicing (its per-item work)."""

    sliced = 0

    def __getitem__(self, index):
        got = super().__getitem__(index)
        if isinstance(index, slice):
            CountingTokens.sliced += len(got)
        return got


def sliced_tokens(monkeypatch, source: str) -> tuple[int, int]:
    lexed = signatures.tokens
    counted: list[CountingTokens] = []

    def counting(text: str) -> CountingTokens:
        counted.append(CountingTokens(lexed(text)))
        return counted[-1]

    CountingTokens.sliced = 0
    monkeypatch.setattr(signatures, "tokens", counting)
    functions, _, _ = signatures.top_level(source)
    assert len(functions) >= 3000
    return CountingTokens.sliced, len(counted[0])


def test_reading_plain_functions_is_linear(monkeypatch):
    sliced, total = sliced_tokens(monkeypatch, "".join(f"fn a{i}() {{}}\n" for i in range(3000)))
    assert sliced <= 4 * total, (sliced, total)


def test_reading_functions_after_an_unending_item_is_linear(monkeypatch):
    sliced, total = sliced_tokens(monkeypatch, UNENDING + "".join(f"fn a{i}() {{}}\n" for i in range(3000)))
    assert sliced <= 4 * total, (sliced, total)


def test_an_unsafe_fn_in_a_module_does_not_refuse_the_solution_after_it():
    source = "mod util {\n    use std::ptr;\n    use std::mem;\n    pub unsafe fn f() {}\n}\n\n" + SOLUTION
    functions, refused, _ = signatures.top_level(source)
    assert [f.name for f in functions] == ["intersperse"], refused


def test_a_correct_answer_with_such_a_module_passes(judge):
    code = "mod util {\n    use std::ptr;\n    use std::mem;\n    pub unsafe fn f() {}\n}\n\n" + SOLUTION
    result = judge.judge(code, [Case.asserts(TESTS)], language="rust", limits=Limits(cpu_time=5, memory_mb=512))
    assert result.verdict is Verdict.AC, (result.verdict, result.cases[0].message[-2000:])


def test_reading_a_program_of_punctuation_holds_little_of_the_judges_memory():
    """Measured on a 4 MiB program (the largest judgebox takes) of ``;``: 714 MB of the judge's memory and
    16 s of its CPU, per assert submission, before anything reaches the sandbox. Here on 128 KiB."""
    import tracemalloc

    source = SOLUTION + ";" * (1 << 17)
    tracemalloc.start()
    try:
        functions, _, _ = signatures.top_level(source)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [f.name for f in functions] == ["intersperse"]
    assert peak <= 16 * len(source), f"{peak >> 20} MiB for a {len(source) >> 10} KiB program"
