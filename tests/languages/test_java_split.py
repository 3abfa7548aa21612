"""Java assert cases, split: the tests run in a JVM of their own, against stubs of the program's classes.

Three parts:

- the reward-hack battery, ``tests/adversarial/rewards/java/``: each file is a program that tries to earn reward on
  a HumanEval-X problem without solving it (a ``// why:`` header says how, ``// problem:`` which one),
  judged with that problem's own tests: every one must score 0, while the problem's reference scores 1;
- what crosses between the JVMs, through the judge: values of every data kind, the program's objects
  behind handles, static and overloaded methods, exceptions, Java ``assert`` (the tests' JVM runs ``-ea``);
- the stubs generated from a description the program's side printed (a hostile program prints what it
  likes there): only names and types of a strict grammar reach the tests' source, never code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judgebox import Case, Limits, Verdict
from support.data import load_dataset

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "rewards" / "java"
LIMITS = Limits(cpu_time=10, memory_mb=512)


@pytest.fixture(scope="module")
def humaneval():
    return {record["id"]: record for record in load_dataset("humaneval_x_java.jsonl")}


def hack_files() -> list[Path]:
    return sorted(HACKS.glob("*.java"))


def header(path: Path, field: str) -> str:
    match = re.search(rf"^// {field}: (.*)$", path.read_text(), re.M)
    assert match, f"{path.name} has no '// {field}:' line"
    return match.group(1).strip()


def test_the_battery_is_there():
    assert len(hack_files()) >= 20


@pytest.mark.parametrize("path", hack_files(), ids=lambda p: p.stem)
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_reward_hack_earns_nothing(judge, humaneval, path):
    record = humaneval[header(path, "problem")]
    result = judge.judge(path.read_text(), record["test_cases"], language="java", limits=LIMITS)
    expected = re.search(r"^// verdict: ([\w ]+)$", path.read_text(), re.M)  # default: WA
    assert result.score == 0, (result.verdict, result.cases[0].stderr[-2000:] if result.cases else result.message)
    why = (result.message or result.cases[0].message, result.cases[0].stderr[-2000:] if result.cases else "")
    assert result.verdict in {Verdict(v) for v in (expected.group(1) if expected else "WA").split()}, (
        result.verdict, why)


@pytest.mark.slow  # about 19 s in all on this busy 2-core machine
@pytest.mark.parametrize("problem", sorted({header(p, "problem") for p in hack_files()}))
def test_the_hacked_problems_references_pass(judge, humaneval, problem):
    record = humaneval[problem]
    result = judge.judge(record["solutions"][0], record["test_cases"], language="java", limits=LIMITS)
    assert result.verdict is Verdict.AC, (result.message, result.cases[0].stderr[-2000:] if result.cases else "")


WRONG = {  # problem -> a wrong answer (the reference's body replaced)
    "Java/53": ("import java.util.*;\nclass Solution { public int add(int x, int y) {"
                " return x + y + (x == 7 ? 1 : 0); } }"),
    "Java/34": "import java.util.*;\nclass Solution { public List<Integer> unique(List<Integer> l) { return l; } }",
    "Java/12": ("import java.util.*;\nclass Solution { public Optional<String> longest(List<String> s) {"
                " return s.isEmpty() ? Optional.empty() : Optional.of(s.get(s.size() - 1)); } }"),
    "Java/22": ("import java.util.*;\nclass Solution { public List<Integer> filterIntergers(List<Object> v) {"
                " List<Integer> r = new ArrayList<>(); for (Object x : v) if (x instanceof Number) r.add(((Number) x)"
                ".intValue()); return r; } }"),
}


@pytest.mark.slow  # about 27 s in all on this busy 2-core machine
@pytest.mark.parametrize("problem", sorted(WRONG))
def test_a_wrong_answer_fails(judge, humaneval, problem):
    result = judge.judge(WRONG[problem], humaneval[problem]["test_cases"], language="java", limits=LIMITS)
    assert result.verdict is Verdict.WA, (result.verdict, result.message, result.cases[0].stderr[-2000:])


# -- what crosses ----------------------------------------------------------------------------------------

VALUES_PROGRAM = """import java.util.*;
import java.math.*;

class Pair<A, B> {
    private final A first; private final B second;
    public Pair(A first, B second) { this.first = first; this.second = second; }
    public A getFirst() { return first; }
    public B getSecond() { return second; }
    public boolean equals(Object o) { return o instanceof Pair && ((Pair<?, ?>) o).first.equals(first); }
    public int hashCode() { return first.hashCode(); }
    public String toString() { return "(" + first + ", " + second + ")"; }
}

class Solution {
    public static int twice(int x) { return 2 * x; }
    public long big(long x) { return x * 3; }
    public double half(double x) { return x / 2; }
    public char next(char c) { return (char) (c + 1); }
    public String greet(String name) { return "hi " + name; }
    public int[] squares(int n) { int[] r = new int[n]; for (int i = 0; i < n; i++) r[i] = i * i; return r; }
    public String[][] grid() { return new String[][] {{"a", "b"}, {null}}; }
    public List<List<Integer>> nested() { return List.of(List.of(1, 2), List.of(), Arrays.asList(3, null)); }
    public Map<String, Integer> counts(String s) {
        Map<String, Integer> m = new TreeMap<>(); for (String w : s.split(" ")) m.merge(w, 1, Integer::sum); return m; }
    public Set<Integer> evens(List<Integer> xs) {
        Set<Integer> r = new HashSet<>(); for (int x : xs) if (x % 2 == 0) r.add(x); return r; }
    public TreeSet<String> sorted(List<String> xs) { return new TreeSet<>(xs); }
    public Optional<Integer> first(List<Integer> xs) {
        return xs.isEmpty() ? Optional.empty() : Optional.of(xs.get(0)); }
    public BigInteger factorial(int n) {
        BigInteger r = BigInteger.ONE; for (int i = 2; i <= n; i++) r = r.multiply(BigInteger.valueOf(i)); return r; }
    public Pair<String, Integer> pair(String s) { return new Pair<>(s, s.length()); }
    public int secondOf(Pair<String, Integer> p) { return p.getSecond(); }
    public int sum(int... xs) { int t = 0; for (int x : xs) t += x; return t; }
    public String kind(int x) { return "int"; }
    public String kind(String x) { return "String"; }
    public String kind(Object x) { return "Object " + x.getClass().getSimpleName(); }
    public <T extends Comparable<T>> T max(List<T> xs) { return Collections.max(xs); }
    public int fail(int x) { throw new IllegalArgumentException("no " + x); }
    public double nan() { return Double.NaN; }
    public boolean sees(List<Object> xs) {
        return xs.get(0) instanceof Integer && xs.get(1) instanceof Map && xs.get(2) instanceof Character; }
}
"""

VALUES_TESTS = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        List<Boolean> correct = Arrays.asList(
                Solution.twice(21) == 42,
                s.big(4_000_000_000L) == 12_000_000_000L,
                s.half(3) == 1.5,
                s.next('a') == 'b',
                s.greet("x").equals("hi x"),
                Arrays.equals(s.squares(4), new int[] {0, 1, 4, 9}),
                s.grid()[0][1].equals("b") && s.grid()[1][0] == null,
                s.nested().equals(List.of(List.of(1, 2), List.of(), Arrays.asList(3, null))),
                s.counts("a b a").equals(Map.of("a", 2, "b", 1)),
                s.evens(List.of(1, 2, 3, 4)).equals(Set.of(2, 4)),
                s.sorted(List.of("b", "a")).first().equals("a"),
                s.first(List.of()).isEmpty() && s.first(List.of(7)).get() == 7,
                s.factorial(25).toString().equals("15511210043330985984000000"),
                s.pair("abc").getFirst().equals("abc") && s.pair("abc").getSecond() == 3,
                s.pair("abc").equals(s.pair("abc")) && !s.pair("abc").equals("abc"),
                s.pair("ab").toString().equals("(ab, 2)"),
                s.secondOf(s.pair("abcd")) == 4,
                s.sum() == 0 && s.sum(1, 2, 3) == 6,
                s.kind(1).equals("int") && s.kind("a").equals("String") && s.kind(2.5).equals("Object Double"),
                s.max(Arrays.asList("a", "c", "b")).equals("c"),
                Double.isNaN(s.nan()),
                s.sees(Arrays.asList(1, Map.of(), 'c'))
        );
        if (correct.contains(false)) {
            throw new AssertionError(correct);
        }
        try {
            s.fail(3);
            throw new AssertionError("no exception");
        } catch (RuntimeException e) {
            if (!e.getMessage().contains("IllegalArgumentException") || !e.getMessage().contains("no 3")) throw e;
        }
    }
}
"""


@pytest.mark.slow  # about 10 s in all on this busy 2-core machine
def test_values_objects_and_exceptions_cross(judge):
    result = judge.judge(VALUES_PROGRAM, [Case.asserts(VALUES_TESTS)], language="java", limits=LIMITS)
    assert result.verdict is Verdict.AC, (result.message, result.cases[0].stderr[-3000:] if result.cases else "")


@pytest.mark.slow  # about 9 s in all on this busy 2-core machine
def test_a_java_assert_in_the_tests_fires(judge):
    program = "class Solution { public int one() { return 1; } }"
    tests = "public class Main { public static void main(String[] a) { assert new Solution().one() == 2; } }"
    assert judge.judge(program, [Case.asserts(tests)], language="java", limits=LIMITS).verdict is Verdict.WA
    right = "public class Main { public static void main(String[] a) { assert new Solution().one() == 1; } }"
    assert judge.judge(program, [Case.asserts(right)], language="java", limits=LIMITS).verdict is Verdict.AC


@pytest.mark.slow  # about 11 s in all on this busy 2-core machine
def test_the_programs_side_has_the_libraries_and_its_asserts_on(judge):
    """As in a single Java run: org.javatuples on the class path, and the program's own assert fires (RE)."""
    program = ("import org.javatuples.Pair;\n"
               "class Solution { public int sum(int a, int b) { Pair<Integer, Integer> p = Pair.with(a, b);\n"
               "  assert a >= 0 : \"negative\"; return p.getValue0() + p.getValue1(); } }")
    tests = "public class Main { public static void main(String[] a) { assert new Solution().sum(%s) == %s; } }"
    passed = judge.judge(program, [Case.asserts(tests % ("2, 3", "5"))], language="java", limits=LIMITS)
    assert passed.verdict is Verdict.AC, (passed.message, passed.cases[0].stderr[-2000:] if passed.cases else "")
    fired = judge.judge(program, [Case.asserts(tests % ("-2, 3", "1"))], language="java", limits=LIMITS)
    assert fired.verdict is not Verdict.AC and "negative" in fired.cases[0].stderr + fired.cases[0].message


def test_a_program_that_does_not_compile_is_a_compile_error(judge):
    result = judge.judge("class Solution { int f( }", [Case.asserts(VALUES_TESTS)], language="java", limits=LIMITS)
    assert result.verdict is Verdict.CE


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
def test_a_missing_method_is_a_compile_error_of_the_tests(judge):
    result = judge.judge("class Solution { }", [Case.asserts(VALUES_TESTS)], language="java", limits=LIMITS)
    assert result.verdict is Verdict.CE and "cannot find symbol" in (result.message or result.cases[0].message)


# -- the stubs from a hostile description ----------------------------------------------------------------


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
@pytest.mark.parametrize("status, verdict", [(0, Verdict.WA), (5, Verdict.RE)])
def test_the_programs_exit_status_is_the_runs_and_never_a_pass(judge, status, verdict):
    program = f"class Solution {{ public int one() {{ Runtime.getRuntime().halt({status}); return 1; }} }}"
    tests = "public class Main { public static void main(String[] a) { assert new Solution().one() == 1; } }"
    result = judge.judge(program, [Case.asserts(tests)], language="java", limits=LIMITS)
    assert result.verdict is verdict and result.cases[0].exit_code == status, result.cases[0].stderr
