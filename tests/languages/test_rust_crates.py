"""The crates HumanEval-X's Rust evaluation builds with (rand, regex, md5) for Rust programs and tests
(``judgebox.languages.rust_crates``): built once per machine from Debian's sources into the toolchain cache,
linked into a build that names one of them.

The tests that judge skip, with the packages to install, where Debian's crates or cargo are not installed;
the first of them may wait a minute or two while the crates are built (once per machine).
"""

from __future__ import annotations

import os

import pytest

from judgebox import Case, Limits, Verdict, languages
from judgebox.languages import rust_crates
from judgebox.languages.rust_split import signatures
from support.data import load_dataset

LIMITS = Limits(cpu_time=10, memory_mb=512)
HEAD = ("fn main(){}\n\nuse std::{slice::Iter, cmp::{max, self}, mem::replace, collections::{HashSet, HashMap},"
        " ops::Index, ascii::AsciiExt};\nuse rand::Rng;\nuse regex::Regex;\nuse md5;\nuse std::any::{Any, TypeId};\n\n")
MISSING = ("Debian's crates are not installed here: apt-get install " + " ".join(rust_crates.PACKAGES)
           + " (scripts/setup.sh installs them)")
# the HumanEval-X references that need the crates: 38, 50, 53 (their tests use rand), 91 (regex), 162 (md5)
NEEDING_CRATES = ("Rust/38", "Rust/50", "Rust/53", "Rust/91", "Rust/162")

MD5_PROGRAM = HEAD + ("fn string_to_md5(text: &str) -> String {\n    if text.is_empty() {\n"
                      "        return \"None\".to_string();\n    }\n"
                      "    format!(\"{:x}\", md5::compute(text.as_bytes()))\n}\n")
MD5_TESTS = ("#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_string_to_md5() {\n"
             "        assert_eq!(string_to_md5(\"Hello world\"), \"3e25960a79dbc69b674cd4ec67a72c62\");\n"
             "        assert_eq!(string_to_md5(\"password\"), \"5f4dcc3b5aa765d61d8327deb882cf99\");\n"
             "        assert_eq!(string_to_md5(\"\"), \"None\");\n    }\n}\n")


@pytest.fixture(scope="module")
def crates(judge):
    """The crates in the judge's toolchain cache (built now if they are not), or the test skips."""
    built = rust_crates.available(judge._programs.toolchain_cache)
    if built is None:
        pytest.skip(MISSING)
    return built


def judge_asserts(judge, code: str, tests: str):
    return judge.judge(code, [Case.asserts(tests)], language="rust", limits=LIMITS)


def detail(result) -> tuple:
    return result.verdict, result.message, result.cases[0].message, result.cases[0].stderr[-3000:]


# -- through the judge ---------------------------------------------------------------------------------------------

def test_a_stdio_program_uses_regex(judge, crates):
    code = ("use regex::Regex;\nuse std::io::Read;\n\nfn main() {\n    let mut text = String::new();\n"
            "    std::io::stdin().read_to_string(&mut text).unwrap();\n"
            "    let dates = Regex::new(r\"(\\d{4})-(\\d{2})-(\\d{2})\").unwrap();\n"
            "    for c in dates.captures_iter(&text) {\n"
            "        println!(\"{}/{}/{}\", &c[3], &c[2], &c[1]);\n    }\n}\n")
    result = judge.judge(code, [Case.stdio("from 2024-01-31 to 2025-12-07\n", "31/01/2024\n07/12/2025\n")],
                         language="rust", limits=LIMITS)
    assert result.verdict is Verdict.AC, detail(result)
    md5 = judge.judge("fn main() {\n    println!(\"{:x}\", md5::compute(b\"password\"));\n}\n",
                      [Case.stdio("", "5f4dcc3b5aa765d61d8327deb882cf99\n")], language="rust", limits=LIMITS)
    assert md5.verdict is Verdict.AC, detail(md5)


def test_the_tests_use_rand_as_humaneval_x_writes_them(judge, crates):
    # rand::random, thread_rng() with Rng's gen and rand 0.4's gen_range(low, high), Rng reached through
    # the program's `use rand::Rng;` (use super::*)
    program = HEAD + "fn add(x: i32, y: i32) -> i32 {\n    x + y\n}\n"
    tests = ("#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_add() {\n"
             "        let mut rng = rand::thread_rng();\n        for _ in 0..100 {\n"
             "            let x: i32 = rng.gen::<i32>() % 1000;\n            let y = rng.gen_range(-50, 50);\n"
             "            let z = (rand::random::<u32>() % 7) as i32;\n"
             "            assert!(add(x, y) == x + y);\n            assert_eq!(add(z, 0), z);\n        }\n    }\n}\n")
    passed = judge_asserts(judge, program, tests)
    assert passed.verdict is Verdict.AC, detail(passed)
    wrong = judge_asserts(judge, program.replace("x + y", "x + y + (x == 0) as i32"), tests.replace(
        "for _ in 0..100", "assert_eq!(add(0, rng.gen_range(1, 2)), 1);\n        for _ in 0..100"))
    assert wrong.verdict is Verdict.WA, detail(wrong)


def test_tests_that_import_rand_themselves_get_rand_0_8(judge, crates):
    tests = ("#[cfg(test)]\nmod tests {\n    use super::*;\n    use rand::Rng;\n\n    #[test]\n    fn test_add() {\n"
             "        let y: i32 = rand::thread_rng().gen_range(0..10);\n"
             "        assert_eq!(add(1, y), 1 + y);\n    }\n}\n")
    result = judge_asserts(judge, HEAD + "fn add(x: i32, y: i32) -> i32 {\n    x + y\n}\n", tests)
    assert result.verdict is Verdict.AC, detail(result)


def test_a_program_uses_md5_and_regex(judge, crates):
    passed = judge_asserts(judge, MD5_PROGRAM, MD5_TESTS)
    assert passed.verdict is Verdict.AC, detail(passed)
    wrong = judge_asserts(judge, MD5_PROGRAM.replace("text.as_bytes()", "text.trim_end_matches('d').as_bytes()"),
                          MD5_TESTS)
    assert wrong.verdict is Verdict.WA, detail(wrong)
    program = HEAD + ("fn count_words(text: &str) -> usize {\n"
                      "    Regex::new(r\"[A-Za-z]+\").unwrap().find_iter(text).count()\n}\n")
    tests = ("#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_count_words() {\n"
             "        assert_eq!(count_words(\"Hello, big world! 42\"), 3);\n"
             "        assert_eq!(count_words(\"\"), 0);\n"
             "    }\n}\n")
    regex = judge_asserts(judge, program, tests)
    assert regex.verdict is Verdict.AC, detail(regex)


@pytest.mark.slow  # five HumanEval-X problems, about 20 s on this busy 2-core machine
@pytest.mark.parametrize("problem", NEEDING_CRATES)
def test_the_humaneval_x_references_that_need_the_crates_pass(judge, crates, problem):
    record, = (r for r in load_dataset("humaneval_x_rust.jsonl") if r["id"] == problem)
    result = judge.judge(record["solutions"][0], record["test_cases"], language="rust", limits=Limits(cpu_time=20))
    assert result.verdict is Verdict.AC, detail(result)


def test_without_the_crates_a_program_using_one_is_a_compile_error(judge, monkeypatch):
    monkeypatch.setitem(rust_crates._built, judge._programs.toolchain_cache, None)  # as on a machine without them
    unseen = "\n// judged without the crates (a program the judge's result cache has not seen)\n"
    result = judge_asserts(judge, MD5_PROGRAM + unseen, MD5_TESTS)
    assert result.verdict is Verdict.CE, detail(result)
    assert "md5" in (result.message or "") + result.cases[0].message, detail(result)
    # and a program that does not use them passes as before (its prompt's uses of them are dropped)
    program = HEAD + "fn add(x: i32, y: i32) -> i32 {\n    x + y\n}\n" + unseen
    tests = ("#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn t() {\n"
             "        assert_eq!(add(2, 3), 5);\n    }\n}\n")
    assert judge_asserts(judge, program, tests).verdict is Verdict.AC


# -- without a sandbox ------------------------------------------------------------------------------------------

def test_only_a_build_that_names_a_crate_is_given_them(monkeypatch):
    fake = rust_crates.Crates("/cache/deps", {"rand": "/cache/deps/librand-1.rlib",
                                              "regex": "/cache/deps/libregex-2.rlib",
                                              "md5": "/cache/deps/libmd5-3.rlib"})
    monkeypatch.setitem(rust_crates._built, "/cache", fake)
    assert rust_crates.linked("/cache", "fn main() {}\n", "fn t() { assert!(random()); }\n") is None
    assert rust_crates.linked("/cache", "fn main() {}\n", "fn t() { rand::random::<u8>(); }\n") is fake
    assert rust_crates.compile_arguments("/cache", "fn main() { md5::compute(b\"\"); }") == (
        "--extern", "md5=/cache/deps/libmd5-3.rlib", "--extern", "rand=/cache/deps/librand-1.rlib",
        "--extern", "regex=/cache/deps/libregex-2.rlib", "-L", "dependency=/cache/deps")
    assert rust_crates.compile_arguments("/cache", "fn main() {}") == ()
    assert rust_crates.flags(None) == "" and rust_crates.tests_scope(None) == ""


def test_the_uses_of_linked_crates_stay_and_the_others_go():
    program = HEAD + "use itertools::Itertools;\n#[allow(unused)]\npub use ::regex::bytes;\nextern crate md5 as m;\n"
    _, _, rewrites = signatures.top_level(program)
    fake = rust_crates.Crates("/d", {"rand": "/d/a.rlib", "regex": "/d/b.rlib", "md5": "/d/c.rlib"})

    def dropped(crates):
        return sorted(program[i.start:i.end] for i in rust_crates.dropped_uses(program, rewrites, crates)
                      if i.kind == "foreign-use")

    assert dropped(fake) == ["use itertools::Itertools;"]
    assert len(dropped(None)) == 6  # no crates: every use of another crate goes, as before


def test_no_crates_where_the_packages_are_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(rust_crates, "REGISTRY", str(tmp_path / "no-registry"))
    assert rust_crates._build(str(tmp_path / "cache")) is None
    (tmp_path / "registry" / "rand-0.8.5").mkdir(parents=True)  # rand alone: regex and md5 are missing
    monkeypatch.setattr(rust_crates, "REGISTRY", str(tmp_path / "registry"))
    assert rust_crates._build(str(tmp_path / "cache")) is None
    assert not os.path.exists(tmp_path / "cache")


def test_the_rust_entry_is_still_rustc():
    assert languages.get("rust").compile[0] == rust_crates.RUSTC
