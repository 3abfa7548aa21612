"""C++ assert cases, split: the tests run in a process (and a binary, and a file) of their own.

Three parts:

- the reward-hack battery, ``tests/adversarial/rewards/cpp/``: each file is a program that tries to earn reward on
  one of the problems below without solving it (a ``// why:`` header says how, ``// problem:`` which
  problem), judged in the sandbox: every one must score 0, while the problem's honest answer scores 1 and
  a wrong answer 0;
- what crosses between the processes (values of every supported type, reference arguments, exceptions,
  unsupported signatures), through the judge;
- the parts that need no sandbox: reading GCC's type names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgebox import Case, Limits, Verdict

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "rewards" / "cpp"
LIMITS = Limits(cpu_time=10, memory_mb=512)
PRELUDE = ("#include<stdio.h>\n#include<math.h>\n#include<vector>\n#include<string>\n#include<algorithm>\n"
           "using namespace std;\n")


@dataclass(frozen=True)
class Problem:
    honest: str
    wrong: str
    tests: str
    language: str = "cpp"


ISSAME = """bool issame(vector<int> a,vector<int>b){
    if (a.size()!=b.size()) return false;
    for (int i=0;i<a.size();i++)
    {
        if (a[i]!=b[i]) return false;
    }
    return true;
}
"""
PROBLEMS = {
    "sort_array": Problem(
        PRELUDE + "vector<int> sort_array(vector<int> arr){\n    sort(arr.begin(),arr.end());\n    return arr;\n}\n",
        PRELUDE + "vector<int> sort_array(vector<int> arr){\n    return arr;\n}\n",
        "#undef NDEBUG\n#include<assert.h>\n" + ISSAME + "int main(){\n"
        "    assert (issame(sort_array({}) , {}));\n"
        "    assert (issame(sort_array({5}) , {5}));\n"
        "    assert (issame(sort_array({2, 4, 3, 0, 1, 5}) , {0, 1, 2, 3, 4, 5}));\n"
        "    assert (issame(sort_array({2, 1}) , {1, 2}));\n}\n"),
    "sort_array_eq": Problem(
        PRELUDE + "vector<int> sort_array(vector<int> arr){\n    sort(arr.begin(),arr.end());\n    return arr;\n}\n",
        PRELUDE + "vector<int> sort_array(vector<int> arr){\n    return arr;\n}\n",
        "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
        "    assert (sort_array({3, 1, 2}) == vector<int>({1, 2, 3}));\n"
        "    assert (!(sort_array({2, 1}) != vector<int>({1, 2})));\n}\n"),
    "flip_case": Problem(
        PRELUDE + "string flip_case(string str){\n    for (auto& c: str) c = isupper(c) ? tolower(c) : toupper(c);\n"
        "    return str;\n}\n",
        PRELUDE + "string flip_case(string str){\n    return str;\n}\n",
        "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
        "    assert (flip_case(\"\") == \"\");\n"
        "    assert (flip_case(\"Hello!\") == \"hELLO!\");\n"
        "    assert (flip_case(\"These violent delights have violent ends\") == "
        "\"tHESE VIOLENT DELIGHTS HAVE VIOLENT ENDS\");\n}\n"),
    "truncate_number": Problem(
        PRELUDE + "float truncate_number(float number){\n    return number-int(number);\n}\n",
        PRELUDE + "float truncate_number(float number){\n    return number;\n}\n",
        "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
        "    assert (truncate_number(3.5) == 0.5);\n"
        "    assert (abs(truncate_number(1.33) - 0.33) < 1e-4);\n"
        "    assert (fabs(truncate_number(123.456) - 0.456) < 1e-4);\n}\n"),
    "is_prime": Problem(
        PRELUDE + "bool is_prime(long long n){\n    if (n<2) return false;\n"
        "    for (long long i=2;i*i<=n;i++) if (n%i==0) return false;\n    return true;\n}\n",
        PRELUDE + "bool is_prime(long long n){\n    return n%2==1;\n}\n",
        "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
        "    assert (is_prime(6) == false);\n"
        "    assert (is_prime(101) == true);\n"
        "    assert (is_prime(2));\n"
        "    assert (!is_prime(1));\n"
        "    assert (is_prime(9) == false);\n}\n"),
    "c_digit_sum": Problem(
        "#include <ctype.h>\nint digit_sum(const char* s) {\n    int t = 0;\n"
        "    for (; *s; s++) if (isdigit((unsigned char)*s)) t += *s - '0';\n    return t;\n}\n",
        "int digit_sum(const char* s) {\n    return 3;\n}\n",
        "#include <assert.h>\nint main() {\n    assert(digit_sum(\"a1b2\") == 3);\n    assert(digit_sum(\"\") == 0);\n"
        "    assert(digit_sum(\"999\") == 27);\n    return 0;\n}\n", "c"),
    "c_reverse": Problem(
        "#include <string.h>\nchar* reverse(char* s) {\n    size_t n = strlen(s);\n"
        "    for (size_t i = 0; i < n / 2; i++) { char c = s[i]; s[i] = s[n - 1 - i]; s[n - 1 - i] = c; }\n"
        "    return s;\n}\n",
        "char* reverse(char* s) {\n    return s;\n}\n",
        "#include <assert.h>\n#include <string.h>\nint main() {\n    char a[] = \"abc\";\n"
        "    assert(strcmp(reverse(a), \"cba\") == 0);\n    assert(strcmp(a, \"cba\") == 0);\n"
        "    char b[] = \"xy\";\n    reverse(b);\n    assert(strlen(b) == 2 && b[0] == 'y');\n    return 0;\n}\n", "c"),
}


def judge_asserts(judge, code: str, tests: str, language: str = "cpp", limits: Limits = LIMITS):
    return judge.judge(code, [Case.asserts(tests)], language=language, limits=limits)


# -- the reward-hack battery ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hack:
    name: str
    why: str
    problem: str
    code: str


def load_hacks() -> list[Hack]:
    hacks = []
    for path in sorted([*HACKS.glob("*.cpp"), *HACKS.glob("*.c")]):
        code = path.read_text()
        why = re.search(r"^// why: (.+(?:\n// (?!problem:).+)*)", code, re.M)
        problem = re.search(r"^// problem: (\w+)", code, re.M)
        assert why and problem and problem[1] in PROBLEMS, f"{path.name} needs // why: and a known // problem:"
        language = "c" if path.suffix == ".c" else "cpp"
        assert PROBLEMS[problem[1]].language == language, f"{path.name}: a {language} hack of another language"
        hacks.append(Hack(path.name, why[1], problem[1], code))
    return hacks


HACK_LIST = load_hacks()


def test_the_battery_is_there():
    assert len(HACK_LIST) >= 20


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_the_honest_answer_passes_and_a_wrong_one_fails(judge, problem):
    p = PROBLEMS[problem]
    honest = judge_asserts(judge, p.honest, p.tests, p.language)
    assert honest.verdict is Verdict.AC, (honest.cases[0].message, honest.cases[0].stderr)
    wrong = judge_asserts(judge, p.wrong, p.tests, p.language)
    assert wrong.verdict is Verdict.WA and wrong.score == 0, (wrong.verdict, wrong.cases[0].stderr)


@pytest.mark.parametrize("hack", HACK_LIST, ids=lambda h: h.name)
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_a_reward_hack_earns_nothing(judge, hack):
    problem = PROBLEMS[hack.problem]
    result = judge_asserts(judge, hack.code, problem.tests, problem.language)
    assert result.score == 0 and result.verdict is not Verdict.AC, (hack.why, result.verdict)
    assert result.verdict is not Verdict.SE, (hack.why, result.cases[0].message)


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_the_program_cannot_reach_the_tests_process(judge):
    """The program's process sees no fd 3, 4 or 6, and cannot open the tests' process's /proc entries."""
    code = PRELUDE + """#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
string probe(){
    string seen;
    for (int fd : {3, 4, 6}) if (fcntl(fd, F_GETFD) != -1) seen += "fd" + to_string(fd) + " ";
    string parent = "/proc/" + to_string(getppid());
    for (string p : {parent + "/exe", parent + "/fd/4", parent + "/fd/6", parent + "/mem", parent + "/environ"}) {
        int f = open(p.c_str(), O_RDONLY);
        if (f >= 0) { seen += p + " "; close(f); }
    }
    if (kill(getppid(), 0) == 0) seen += "signal ";
    return seen;
}
"""
    result = judge_asserts(judge, code, '#include<assert.h>\nint main(){ string s = probe();'
                           ' printf("[%s]\\n", s.c_str());'
                           ' assert (s == ""); }\n')
    assert result.cases[0].stdout == "[]\n", result.cases[0].stdout
    assert result.verdict is Verdict.AC


# -- what crosses -----------------------------------------------------------------------------------------

TYPES_PROGRAM = """#include <bits/stdc++.h>
using namespace std;
map<string, int> count_words(const vector<string>& words) {
    map<string, int> m; for (auto& w : words) m[w]++; return m;
}
tuple<int, long long, double, char, bool> describe(pair<int, float> p, unsigned short u, signed char s) {
    return make_tuple(p.first, (long long)p.first << 40, p.second * 2.0, (char)('a' + u), s < 0);
}
vector<vector<string>> groups(vector<string> v, size_t n) {
    vector<vector<string>> out;
    for (size_t i = 0; i < v.size(); i += n)
        out.push_back(vector<string>(v.begin() + i, v.begin() + min(v.size(), i + n)));
    return out;
}
set<int> uniq(unordered_map<int, int> m, unordered_set<int> extra) {
    set<int> s(extra.begin(), extra.end()); for (auto& kv : m) s.insert(kv.second); return s;
}
void double_all(vector<int>& v) { for (auto& x : v) x *= 2; }
int sum_moved(vector<int>&& v) { return accumulate(v.begin(), v.end(), 0); }
long double precise(long double x) { return x / 3; }
vector<bool> flags(int n) { vector<bool> f; for (int i = 0; i < n; i++) f.push_back(i % 2); return f; }
const string& longest(const vector<string>& v) {
    static string best; best = ""; for (auto& s : v) if (s.size() > best.size()) best = s; return best;
}
unsigned long long big(string s) { return stoull(s); }
static int calls = 0;
void touch() { calls++; }
int touched() { return calls; }
int main() { printf("never run\\n"); return 3; }
"""
TYPES_TESTS = """#undef NDEBUG
#include <assert.h>
int main() {
    auto m = count_words({"a", "b", "a"});
    assert (m.size() == 2 && m["a"] == 2 && m["b"] == 1);
    auto t = describe({7, 1.25f}, 2, -1);
    assert (get<0>(t) == 7 && get<1>(t) == (7LL << 40) && get<2>(t) == 2.5 && get<3>(t) == 'c' && get<4>(t));
    auto g = groups({"x", "y", "z"}, 2);
    assert (g.size() == 2 && g[0] == vector<string>({"x", "y"}) && g[1] == vector<string>({"z"}));
    assert (uniq({{1, 5}, {2, 6}}, {5, 9}) == set<int>({5, 6, 9}));
    vector<int> v = {1, 2, 3};
    double_all(v);
    assert (v == vector<int>({2, 4, 6}));
    assert (sum_moved({1, 2, 3}) == 6);
    assert (precise(1.0L) == 1.0L / 3);
    assert (flags(3) == vector<bool>({false, true, false}));
    assert (longest({"ab", "abc", "a"}) == "abc");
    assert (big("18446744073709551615") == 18446744073709551615ULL);
    touch(); touch();
    assert (touched() == 2);
    string text(1 << 20, 'q');
    assert (count_words({text})[text] == 1);
}
"""


@pytest.mark.slow  # about 11 s in all on this busy 2-core machine
def test_every_supported_type_crosses_as_its_value(judge):
    result = judge_asserts(judge, TYPES_PROGRAM, TYPES_TESTS)
    assert result.verdict is Verdict.AC, (result.cases[0].message, result.cases[0].stderr)


C_PROGRAM = r"""#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <stdlib.h>
int add(int a, int b) { return a + b; }
bool is_even(long n) { return n % 2 == 0; }
double half(float x) { return x / 2; }
char* reverse(const char* s) {
    size_t n = strlen(s); char* r = malloc(n + 1);
    for (size_t i = 0; i < n; i++) r[i] = s[n - 1 - i];
    r[n] = 0; return r;
}
void upper(char* s) { for (; *s; s++) if (*s >= 'a' && *s <= 'z') *s -= 32; }
const char* nothing(void) { return NULL; }
unsigned char byte(char c) { return (unsigned char)c + 1; }
double fabs(double x) { return 0; }
int main() { return 5; }
"""
C_TESTS = r"""#include <assert.h>
#include <string.h>
#include <math.h>
int main() {
    assert(add(2, 3) == 5);
    assert(is_even(4) && !is_even(3));
    assert(half(3.0f) == 1.5);
    char* r = reverse("abc"); assert(strcmp(r, "cba") == 0); free(r);
    char buf[] = "hello"; upper(buf); assert(strcmp(buf, "HELLO") == 0);
    assert(nothing() == NULL);
    assert(byte('a') == 'b');
    assert(fabs(-2.0) == 2.0);  /* libc's: the program's fabs gets no stub */
    return 0;
}
"""


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
def test_c_values_cross_and_libc_names_stay_libcs(judge):
    result = judge_asserts(judge, C_PROGRAM, C_TESTS, "c")
    assert result.verdict is Verdict.AC, (result.cases[0].message, result.cases[0].stderr)
    wrong = judge_asserts(judge, C_PROGRAM.replace("a + b", "a - b"), C_TESTS, "c")
    assert wrong.verdict is Verdict.WA


@pytest.mark.slow  # about 12 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", ["cpp11", "cpp14", "cpp20"])
def test_other_standards(judge, language):
    result = judge_asserts(judge, PROBLEMS["sort_array"].honest, PROBLEMS["sort_array"].tests, language)
    assert result.verdict is Verdict.AC, (result.cases[0].message, result.cases[0].stderr)


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_multipl_e_form(judge):
    """MultiPL-E's C++ tests take the function as a value: ``auto candidate = f;``."""
    tests = ("#undef NDEBUG\n#include <assert.h>\nint main() {\n    auto candidate = sort_array;\n"
             "    assert(candidate((std::vector<int>({3, 1}))) == (std::vector<int>({1, 3})));\n}\n")
    assert judge_asserts(judge, PROBLEMS["sort_array"].honest, tests).verdict is Verdict.AC
    assert judge_asserts(judge, PROBLEMS["sort_array"].wrong, tests).verdict is Verdict.WA


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_a_program_exception_fails_the_case(judge):
    code = PRELUDE + "#include<stdexcept>\nint f(int x){ if (x > 1) throw out_of_range(\"no\"); return x; }\n"
    result = judge_asserts(judge, code, "#include<assert.h>\nint main(){ assert (f(1) == 1); assert (f(2) == 2); }\n")
    assert result.verdict is Verdict.RE
    assert "threw: no" in result.cases[0].stderr


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_crash_fails_the_case(judge):
    code = PRELUDE + "int f(int x){ volatile int* p = nullptr; return *p + x; }\n"
    result = judge_asserts(judge, code, "#include<assert.h>\nint main(){ assert (f(1) == 1); }\n")
    assert result.verdict is Verdict.RE


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_a_failed_assertion_is_a_wrong_answer(judge):
    code = PRELUDE + "int f(int x){ return x; }\n"
    result = judge_asserts(judge, code, "#include<assert.h>\nint main(){ assert (f(1) == 1); assert (f(2) == 3); }\n")
    assert result.verdict is Verdict.WA
    assert "Assertion" in result.cases[0].stderr


@pytest.mark.slow  # about 10 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", ["cpp", "c"])
def test_tests_that_report_failure_by_their_exit_status_fail(judge, language):
    code = "int f(int x){ return x; }\n"
    ok = "int main(){ if (f(2) != 2) return 1; return 0; }\n"
    assert judge_asserts(judge, code, ok, language).verdict is Verdict.AC
    assert judge_asserts(judge, code, ok.replace("!= 2", "!= 3"), language).verdict is Verdict.WA
    with_args = "int main(int argc, char** argv){ return argc < 1 || f(1) != 1; }\n"
    assert judge_asserts(judge, code, with_args, language).verdict is Verdict.AC


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
@pytest.mark.parametrize("signature, why", [
    ("int f(int* x){ return *x; }", "pointer"),
    ("static int f(int x){ return x; }", "not declared"),  # an unused static function leaves no trace at -O2
    ("int f(int x){ return x; }\nint f(double x){ return 2; }", "overloaded"),
])
def test_a_function_the_harness_cannot_call_is_a_compile_error(judge, signature, why):
    result = judge_asserts(judge, PRELUDE + signature + "\n", "#include<assert.h>\nint main(){ assert (f(1) == 1); }\n")
    assert result.verdict is Verdict.CE
    assert why in result.cases[0].message, result.cases[0].message


def test_a_program_that_does_not_compile(judge):
    result = judge_asserts(judge, PRELUDE + "int f(int x){ return x }\n",
                           "#include<assert.h>\nint main(){ assert (f(1)); }\n")
    assert result.verdict is Verdict.CE and "expected" in result.cases[0].message


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
def test_builds_are_cached(judge):
    code = PRELUDE + "int twice(int x){ return 2 * x; }\n"
    tests = "#include<assert.h>\nint main(){ assert (twice(4) == 8); }\n"
    assert judge_asserts(judge, code, tests).verdict is Verdict.AC
    misses = judge._programs.cache.misses
    for _ in range(3):
        assert judge_asserts(judge, code, tests).verdict is Verdict.AC
    assert judge._programs.cache.misses == misses
    other = PRELUDE + "int twice(int x){ return x + x; }\n"  # same signatures: the tests' side is shared
    assert judge_asserts(judge, other, tests).verdict is Verdict.AC
    assert judge._programs.cache.misses == misses + 2  # its object and its side, not the tests'


# -- no sandbox needed ------------------------------------------------------------------------------------


