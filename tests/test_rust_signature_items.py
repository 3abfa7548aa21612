"""Where the Rust signature reader sees a top-level item end, and its bounds (each a refusal with the
reason, which the harness turns into CE)."""

from __future__ import annotations

import pytest

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


def test_a_program_past_the_token_bound_is_refused_with_the_reason():
    with pytest.raises(signatures.Unsupported, match="more than"):
        signatures.top_level("fn a() {}\n" + "x " * signatures.MAX_TOKENS)


def test_a_signature_past_the_head_bound_is_refused_with_the_reason():
    _, refused, _ = signatures.top_level("fn wide(" + "x: i32, " * (signatures.MAX_HEAD // 4) + ") {}\nfn b() {}")
    assert refused == {"wide": f"its signature is longer than {signatures.MAX_HEAD} tokens"}


def test_a_signature_the_program_ends_in_is_refused():
    assert signatures.top_level("fn cut() -> i32")[1] == {"cut": "a where clause, or no body"}
