"""Where the Rust signature reader sees a top-level item end, and its bounds (each a refusal with the
reason, which the harness turns into CE)."""

from __future__ import annotations

import pytest

from judgebox import languages
from judgebox.languages import rust_split
from judgebox.languages.rust_split import signatures

ITEMS = '''#![allow(dead_code)]
use std::fmt::{self, Write};
mod m { use std::fmt::{self, Write}; pub mod n { pub unsafe fn inner() {} } }
macro_rules! make { ($x:ident) => { fn $x() {} }; }
make!(made);
make! { also_made }
static TABLE: [u8; 3] = [1, 2, 3];
const BLOCK: () = { let _x = 1; };
static RAW: &str = r##"fn fake() {"##;
const fn constant(x: i32) -> i32 { x }
extern "C" { fn external(); }
unsafe fn unsafe_one() {}
#[inline(always)]
pub fn after_attribute(x: i32) -> i32 { let c = '}'; let l: &'static str = "}"; x }
impl<T> Foo<T> { fn method(&self) {} }
struct Named { x: i32 }
struct Tuple(i32);
use rand::{Rng, thread_rng};
/* } */ // }
fn last(v: &[u8]) -> usize { v.len() }
fn main() {}
'''


def test_each_item_ends_where_rust_ends_it():
    functions, refused, items = signatures.top_level(ITEMS)
    assert [f.name for f in functions] == ["constant", "after_attribute", "last"]
    assert refused == {"unsafe_one": "it is unsafe"}
    assert [(i.kind, ITEMS[i.start:i.end]) for i in items] == [
        ("main", "main"), ("foreign-use", "use rand::{Rng, thread_rng};")]


def test_a_signature_past_the_head_bound_is_refused_with_the_reason():
    _, refused, _ = signatures.top_level("fn wide(" + "x: i32, " * (signatures.MAX_HEAD // 4) + ") {}\nfn b() {}")
    assert refused == {"wide": f"its signature is longer than {signatures.MAX_HEAD} tokens"}


def test_a_signature_the_program_ends_in_is_refused():
    assert signatures.top_level("fn cut() -> i32")[1] == {"cut": "a where clause, or no body"}


# the Rust split harness's signature reader (``rust_split/signatures.py``) runs
# on the judge's host, in the judge's process, on the program's text, with no time limit of its own.
#
# Two weaknesses of the way it finds where a top-level item begins (``_ends_item`` looks at the first 12
# tokens of the item; an item whose head holds ``use``/``const``/``static``/``let`` and no ``fn`` never ends):
#
# - cost: once such an item has been seen, every later top-level ``fn`` re-reads every token from that item
#   on, so reading is quadratic in the program's length. Measured on this machine (one core): 5,000
#   one-line functions after ``mod m { use std::fmt::{self, Write, Debug, Display}; }`` take 3.6 s, 10,000
#   take 18 s, 20,000 (a 290 KB program) 96 s, against 0.1-0.5 s without the module; a 4 MiB program,
#   which judgebox accepts, holds the judge's interpreter for hours. The test counts the tokens the reader
#   slices instead of timing it;
# - correctness: the qualifiers of a later function are read over that whole stretch, so an honest
#   program with a small module holding an ``unsafe fn`` has its solution refused ("it is unsafe"): the
#   tests do not compile against it, CE for a correct answer.

# an item of 12+ tokens before any "fn" whose head holds "use": the reader never sees it end
UNENDING = "mod m { use std::fmt::{self, Write, Debug, Display}; }\n"
SOLUTION = ("fn intersperse(numbers: Vec<u32>, delimeter: u32) -> Vec<u32> {\n    let mut res = vec![];\n"
            "    for (i, x) in numbers.iter().enumerate() {\n        if i > 0 { res.push(delimeter); }\n"
            "        res.push(*x);\n    }\n    res\n}\n")


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


def test_the_rust_entry_runs_assert_cases_split():
    assert languages.get("rust").split_asserts is rust_split.split_asserts


def test_signatures_are_read_from_the_top_level_only():
    source = ("// fn hidden(x: i32) -> i32\n/* fn also_hidden() /* nested */ */\n"
              "const S: &str = \"fn in_a_string(x: i32) {\";\nconst R: &str = r#\"fn raw() {\"#;\n"
              "impl Foo { fn method(&self) -> i32 { 1 } }\nmod inner { pub fn inner_fn(x: i32) -> i32 { x } }\n"
              "fn lifetime<'a>(x: &'a str) -> &'a str { x }\nfn generic<T>(x: T) -> T { x }\n"
              "fn quote(c: char) -> bool { c == '\\'' || c == '{' }\n"
              "pub(crate) fn visible(v: &[std::collections::HashMap<String, (u8, Option<bool>)>]) -> [u8; 4] "
              "{ [0; 4] }\nuse rand::Rng;\nuse inner::inner_fn as g;\nfn main() {}\n")
    functions, refused, items = signatures.top_level(source)
    assert [f.name for f in functions] == ["lifetime", "quote", "visible"]  # a lifetime alone is no generic
    assert refused == {"generic": "it is generic (over types, or a lifetime with a bound)"}
    visible = functions[2]
    assert visible.params[0] == signatures.Param(
        "::std::vec::Vec<::std::collections::HashMap<::std::string::String, (u8, ::std::option::Option<bool>)>>", "&",
        slice_of=True)
    assert visible.result == "[u8; 4]"
    assert [(i.kind, source[i.start:i.end]) for i in items] == [("main", "main"), ("foreign-use", "use rand::Rng;")]


def test_a_lying_path_is_refused():
    for lie in ("fn f(x: mylib::Vec<i32>) {}", "fn f(x: std::fs::HashMap<i32, i32>) {}", "fn f(x: Vec<i32, A>) {}",
                "fn f(x: [i32; N]) {}", "fn f(x: impl Fn()) {}", "fn f(x: dyn Any) {}"):
        functions, refused, _ = signatures.top_level(lie)
        assert not functions and "f" in refused, lie
    with pytest.raises(signatures.Unsupported):
        signatures.top_level("fn f() { \"unterminated }")
