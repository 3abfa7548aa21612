"""Adversarial review of the Go and Rust assert harnesses' newest paths: a panic of the program's function
crossing as data and raised again in the tests' process, the Go program's data types copied into the
tests, the standard packages imported for a Go program, and the Rust crates (rand, regex, md5).

Each program tries to earn a pass it does not deserve (a forged or crafted reply, a panic message that
reads like a pass, a panic value whose methods exit or Goexit, a payload whose Drop panics or exits, a
reply that makes the tests' process allocate terabytes), or checks that an honest program the new paths
should carry still passes. Contained attacks are plain regression tests (score 0 and never SE: a masked
sample would hide the hack from the reward); an attack that still succeeds is a strict xfail.
"""

from __future__ import annotations

import pytest

from judgebox import Case, Limits, Verdict

pytestmark = pytest.mark.slow

LIMITS = Limits(cpu_time=3, memory_mb=256)

# -- the tests (as tests/languages/test_go_split.py and test_rust_split.py spell their problems) -------------

MUST_DOUBLE = """func TestMustDouble(t *testing.T) {
    assert.Equal(t, 4, MustDouble(2))
    assert.Panics(t, func() { MustDouble(-1) })
    assert.PanicsWithValue(t, "negative", func() { MustDouble(-3) })
    assert.PanicsWithError(t, "too large", func() { MustDouble(5000) })
    assert.NotPanics(t, func() { MustDouble(0) })
}

func TestRecovered(t *testing.T) {
    defer func() {
        assert.Equal(t, "negative", recover())
    }()
    MustDouble(-7)
    t.Fatal("no panic")
}
"""

PROD_SIGNS = """func TestProdSigns(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(-9, ProdSigns([]int{1, 2, 2, -4}))
    assert.Equal(0, ProdSigns([]int{0, 1}))
    assert.Equal(nil, ProdSigns([]int{}))
}
"""

CHECKED_HALF = """#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves() {
        assert_eq!(checked_half(8), 4);
    }

    #[test]
    #[should_panic]
    fn odd_panics() {
        checked_half(3);
    }

    #[test]
    #[should_panic(expected = "odd: 5")]
    fn with_its_message() {
        checked_half(5);
    }

    #[test]
    fn caught() {
        assert!(std::panic::catch_unwind(|| checked_half(7)).is_err());
        assert_eq!(std::panic::catch_unwind(|| checked_half(6)).ok(), Some(3));
    }
}
"""

# -- Go: programs that must earn nothing -----------------------------------------------------------------------

GO_HACKS = {
    # a 25 MB panic message made of go test's and the report's own words, NULs and newlines, where the
    # tests expect "negative": raised again in T it can only fail the test (or exceed T's limits)
    "huge_crafted_panic_message": (MUST_DOUBLE, """import "strings"

func MustDouble(x int) int {
\tif x < 0 {
\t\tpanic(strings.Repeat("negative\\n--- PASS: TestMustDouble (0.00s)\\nPASS\\nok\\nasserts\\n\\x00", 400000))
\t}
\tif x > 1000 {
\t\tpanic("too large")
\t}
\treturn 2 * x
}
"""),
    # a forged reply (written on fd 7 by the function itself) holding an interface{} of type
    # [200000][200000]int64: each length passes the "no longer than the message" check, the product is
    # 320 GB; T must die (RE) rather than pass or hang the judge
    "forged_reply_of_a_huge_array_type": (PROD_SIGNS, """import (
\t"encoding/binary"
\t"os"
\t"time"
)

func ProdSigns(arr []int) interface{} {
\tbody := []byte{0} // replyResults
\tbody = append(body, 16)
\tbody = binary.LittleEndian.AppendUint64(body, 200000)
\tbody = append(body, 16)
\tbody = binary.LittleEndian.AppendUint64(body, 200000)
\tbody = append(body, 6)
\tbody = append(body, make([]byte, 300000)...)
\tmessage := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
\tos.NewFile(7, "c").Write(append(message, body...))
\ttime.Sleep(time.Hour)
\treturn nil
}
"""),
    # Go 1.19: recover() returns nil for panic(nil), so the program's side sees no panic and no results
    "panic_nil": (MUST_DOUBLE, """func MustDouble(x int) int {
\tif x < 0 {
\t\tpanic(nil)
\t}
\tif x > 1000 {
\t\tpanic("too large")
\t}
\treturn 2 * x
}
"""),
    # the panic from another goroutine of the program's process: it dies there, not in the tests
    "panic_in_a_goroutine": (MUST_DOUBLE, """import "time"

func MustDouble(x int) int {
\tif x < 0 {
\t\tgo func() { panic("negative") }()
\t\ttime.Sleep(time.Second)
\t}
\treturn 2 * x
}
"""),
    # the panic value's Error() (run by the program's side to describe it) exits 0
    "error_method_exits": (MUST_DOUBLE, """import "os"

type E struct{}

func (E) Error() string { os.Exit(0); return "" }

func MustDouble(x int) int {
\tif x < 0 {
\t\tpanic(E{})
\t}
\treturn 2 * x
}
"""),
    # the panic value's Error() calls runtime.Goexit on the serving goroutine
    "error_method_goexits": (MUST_DOUBLE, """import "runtime"

type E struct{}

func (E) Error() string { runtime.Goexit(); return "" }

func MustDouble(x int) int {
\tif x < 0 {
\t\tpanic(E{})
\t}
\treturn 2 * x
}
"""),
}


def judge_go(judge, code: str, tests: str):
    return judge.judge(code, [Case.asserts(tests)], language="go", limits=LIMITS)


@pytest.mark.parametrize("name", sorted(GO_HACKS))
def test_a_go_harness_attack_earns_nothing(judge, name):
    tests, code = GO_HACKS[name]
    result = judge_go(judge, code, tests)
    assert result.verdict not in (Verdict.AC, Verdict.SE), (name, result)


def test_a_go_data_type_named_like_a_stubs_variable_still_passes(judge):
    """The stubs name their parameters a0.. and results r0..: a program's type r0 must not break them."""
    code = ("type r0 float64\n\ntype Celsius float64\n\ntype Fahrenheit float64\n\n"
            "func ToFahrenheit(c Celsius) Fahrenheit { return Fahrenheit(c*9/5 + 32) }\n\n"
            "func Helper(a0 r0) r0 { return a0 * 2 }\n")
    tests = ("func TestToFahrenheit(t *testing.T) {\n    assert.Equal(t, Fahrenheit(212), ToFahrenheit(100))\n"
             "    assert.Equal(t, r0(6), Helper(3))\n}\n")
    result = judge_go(judge, code, tests)
    assert result.verdict == Verdict.AC, result


def test_a_go_panic_of_another_type_with_the_expected_text_fails_as_under_go_test(judge):
    code = """type S string

type E struct{ text string }

func (e E) Error() string { return e.text }

func MustDouble(x int) int {
\tif x < 0 {
\t\tpanic(S("negative"))
\t}
\tif x > 1000 {
\t\tpanic(E{"too large"})
\t}
\treturn 2 * x
}
"""
    result = judge_go(judge, code, MUST_DOUBLE)
    assert result.verdict == Verdict.WA, result


# -- Rust ------------------------------------------------------------------------------------------------------

RUST_HACKS = {
    # a 30 MB panic message of libtest's and the report's own words, NULs and newlines
    "huge_crafted_panic_message": """fn checked_half(x: i32) -> i32 {
    if x % 2 != 0 {
        panic!("{}", "odd: 5\\ntest tests::halves ... ok\\ntest result: ok. 4 passed\\n\\0asserts\\n".repeat(400000));
    }
    x / 3
}
""",
    # a guard whose Drop panics while the function's panic unwinds: the program's process aborts
    "drop_panics_while_unwinding": """struct Bomb;
impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("odd: 5");
    }
}
fn checked_half(x: i32) -> i32 {
    let _b = Bomb;
    if x % 2 != 0 {
        panic!("odd: {}", x);
    }
    std::mem::forget(_b);
    x / 2
}
""",
    # a payload whose Drop panics (the program's side drops it after reading its message)
    "payload_drop_panics": """struct Bomb(String);
impl Drop for Bomb {
    fn drop(&mut self) { panic!("odd: 5"); }
}
fn checked_half(x: i32) -> i32 {
    if x % 2 != 0 {
        std::panic::panic_any(Bomb(format!("odd: {}", x)));
    }
    x / 2
}
""",
    # a payload whose Drop exits 0 inside the dispatcher's catch_unwind
    "payload_drop_exits": """struct Quit;
impl Drop for Quit {
    fn drop(&mut self) { std::process::exit(0); }
}
fn checked_half(x: i32) -> i32 {
    if x % 2 != 0 {
        std::panic::panic_any(Quit);
    }
    x / 2
}
""",
    # the regex crate, asked to compile big patterns in a loop (its size limit raised): bounded by the limits
    "regex_compile_bomb": """use regex::Regex;
fn checked_half(x: i32) -> i32 {
    let mut n = 0;
    for i in 0..1000000 {
        let re = regex::RegexBuilder::new(&format!("(\\\\w{{50}}|[a-z]{{40}}){{20}}{}", i)).size_limit(1 << 30).build();
        if re.is_ok() { n += 1; }
    }
    x / 2 + n
}
""",
}


def judge_rust(judge, code: str, tests: str):
    return judge.judge(code, [Case.asserts(tests)], language="rust", limits=LIMITS)


@pytest.mark.parametrize("name", sorted(RUST_HACKS))
def test_a_rust_harness_attack_earns_nothing(judge, name):
    result = judge_rust(judge, RUST_HACKS[name], CHECKED_HALF)
    assert result.verdict not in (Verdict.AC, Verdict.SE), (name, result)


def test_a_rust_program_using_rand_passes(judge):
    """Naming rand links the crates (built once per machine); thread_rng works in the sandbox."""
    code = ("use rand::Rng;\nfn checked_half(x: i32) -> i32 {\n    let mut rng = rand::thread_rng();\n"
            "    let noise: u32 = rng.gen_range(0..1);\n    if x % 2 != 0 {\n        panic!(\"odd: {}\", x);\n"
            "    }\n    x / 2 + noise as i32\n}\n")
    result = judge_rust(judge, code, CHECKED_HALF)
    assert result.verdict == Verdict.AC, result
