"""SandboxFusion's runner scenarios, against a real ``judgebox serve``.

SandboxFusion's own runner suite (``sandbox/tests/runners/test_<language>.py``) is what code written for its
``/run_code`` relies on: 62 scenarios over 12 languages. Each entry below is one of them, under its name
there: the same request (language, code, stdin, files, timeouts) and the same expected response fields
(``status``, ``run_result.status``, ``compile_result``, and the text the output must hold). Beside them: the
libraries those images ship and SandboxFusion-style datasets import, checked inside the sandbox, and a
LeetCode-style solution that needs one of them.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import httpx
import pytest

from judgebox import Case, Limits, Verdict

SECRET = base64.b64encode(b'"hello, this is a test"').decode()  # a file's content, as SandboxFusion sends it


@dataclass(frozen=True)
class Scenario:
    name: str  # the SandboxFusion test it comes from
    language: str
    code: str
    request: dict = field(default_factory=dict)  # the other request fields
    status: str = "Success"  # the response's status
    run: str | None = "Finished"  # run_result.status; None: no run_result at all
    compiled: bool = False  # a compile_result that says Finished
    compile_failed: bool = False  # ... with a non-zero return code
    stdout: str | None = None  # stdout, exactly
    stdout_stripped: str | None = None  # stdout without surrounding whitespace
    stdout_has: str = ""
    stderr_has: str = ""
    files: dict[str, str] = field(default_factory=dict)  # fetched path -> its decoded text
    marks: tuple = ()


def _print(name: str, language: str, code: str, printed: str | None = "123", **fields) -> Scenario:
    return Scenario(name, language, code, {"run_timeout": 5}, stdout_stripped=printed, **fields)


def _stdin(name: str, language: str, code: str, **request) -> Scenario:
    return Scenario(name, language, code, {"stdin": "65535", "run_timeout": 5, **request}, stdout="65535\n")


def _timeout(name: str, language: str, code: str, marks: tuple = (), **request) -> Scenario:
    return Scenario(name, language, code, request, status="Failed", run="TimeLimitExceeded", marks=marks)


def _failed(name: str, language: str, code: str, stderr_has: str = "", **fields) -> Scenario:
    return Scenario(name, language, code, fields.pop("request", {}), status="Failed", stderr_has=stderr_has,
                    **fields)


def _compile_error(name: str, language: str, code: str) -> Scenario:
    return Scenario(name, language, code, status="Failed", run=None, compiled=True, compile_failed=True)


JAVA_MAIN = "public class Main {{\n    public static void main(String[] args) {{\n{}\n    }}\n}}\n"
CPP_THREADS = """#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>

template <typename T> class Channel {
  public:
    void put(T value) {
        std::lock_guard<std::mutex> hold(lock_);
        items_.push(std::move(value));
        ready_.notify_one();
    }
    std::optional<T> take() {
        std::unique_lock<std::mutex> hold(lock_);
        ready_.wait(hold, [this] { return !items_.empty(); });
        T value = std::move(items_.front());
        items_.pop();
        return value;
    }
  private:
    std::mutex lock_;
    std::condition_variable ready_;
    std::queue<T> items_;
};

template <typename T, typename Make, typename Show> void exchange(Make make, Show show) {
    Channel<T> channel;
    auto produce = [&](int id) {
        for (int i = 0; i < 3; ++i) { std::cout << "put " << id << "\\n"; channel.put(make(i)); }
    };
    auto consume = [&](int id) {
        for (int i = 0; i < 3; ++i) { auto v = channel.take(); std::cout << id << show(*v) << "\\n"; }
    };
    std::thread p1(produce, 1), p2(produce, 2), c1(consume, 1), c2(consume, 2);
    p1.join(); p2.join(); c1.join(); c2.join();
}

int main() {
    exchange<int>([](int i) { return i; }, [](int v) { return v; });
    exchange<std::unique_ptr<int>>([](int i) { return std::make_unique<int>(i); },
                                   [](const std::unique_ptr<int>& v) { return *v; });
}
"""

SCENARIOS = (
    # --- python ---
    _print("test_python_print", "python", "print(123)"),
    _timeout("test_python_timeout", "python", "import time; time.sleep(0.2)", run_timeout=0.1),
    _failed("test_python_assertion_error", "python", "assert 1 == 2", "AssertionError", request={"run_timeout": 5}),
    _failed("test_python_syntax_error", "python", "int a = 1", "SyntaxError: invalid syntax",
            request={"run_timeout": 5}),
    Scenario("test_python_file_read", "python", 'print(open("dir1/dir2/dir3/secret_flag").read())',
             {"run_timeout": 5, "files": {"dir1/dir2/dir3/secret_flag": SECRET}}, stdout_has="hello, this is a test"),
    _stdin("test_python_stdin", "python", "print(int(input()))"),
    Scenario("test_python_fetch_files", "python",
             'open("a.txt", "w").write("secret"); open("/mnt/b", "w").write("sauce");',
             {"run_timeout": 5, "fetch_files": ["a.txt", "/mnt/b"]}, files={"a.txt": "secret", "/mnt/b": "sauce"}),
    # --- cpp ---
    _print("test_cpp_print", "cpp", '#include <iostream>\nint main() { std::cout << "123" << std::endl; return 0; }',
           compiled=True),
    _timeout("test_cpp_timeout", "cpp", "#include <chrono>\n#include <thread>\n"
             "int main() { std::this_thread::sleep_for(std::chrono::milliseconds(1000)); return 0; }",
             run_timeout=0.5, compile_timeout=5),
    _failed("test_cpp_assertion_error", "cpp", "#include <cassert>\nint main() { assert(1 == 2); return 0; }",
            "Assertion"),
    _compile_error("test_cpp_compile_error", "cpp", "int main() {\n    object i = ?;\n    return 0;\n}"),
    _stdin("test_cpp_stdin", "cpp",
           "#include <iostream>\nint main() { int n; std::cin >> n; std::cout << n << std::endl; return 0; }"),
    Scenario("test_cpp_pthread", "cpp", CPP_THREADS, {"run_timeout": 2}),
    # --- java ---
    _print("test_java_print", "java", JAVA_MAIN.format("        System.out.println(123);"), compiled=True),
    _compile_error("test_java_compile_error", "java", JAVA_MAIN.format("        System.uto.println(123);")),
    _timeout("test_java_timeout", "java", JAVA_MAIN.format(
        "        try { Thread.sleep(200); } catch (InterruptedException e) { System.err.println(e); }"),
        run_timeout=0.1),
    _failed("test_java_assertion_error", "java",
            JAVA_MAIN.format('        throw new AssertionError("Intentional assertion error");'),
            "java.lang.AssertionError"),
    _failed("test_java_assert", "java", JAVA_MAIN.format("        assert 1 == 2;")),
    Scenario("test_java_external_jar", "java", "import org.javatuples.Pair;\nimport org.javatuples.Triplet;\n" +
             JAVA_MAIN.format(
                 '        Pair<String, Integer> pair = Pair.with("apple", 1);\n'
                 '        System.out.println("Fruit: " + pair.getValue0() + ", Quantity: " + pair.getValue1());\n'
                 '        Triplet<String, Integer, Double> t = Triplet.with("banana", 2, 0.99);\n'
                 '        System.out.println("Fruit: " + t.getValue0() + ", Quantity: " + t.getValue1()'
                 ' + ", Price: " + t.getValue2());'),
             stdout_has="Fruit: banana, Quantity: 2, Price: 0.99"),
    _stdin("test_java_stdin", "java", "import java.util.Scanner;\n" + JAVA_MAIN.format(
        "        System.out.println(new Scanner(System.in).nextInt());")),
    # --- nodejs ---
    _print("test_nodejs_print", "nodejs", "console.log(123)"),
    _timeout("test_nodejs_timeout", "nodejs", "const sleep = require('util').promisify(setTimeout);\n"
             "(async () => { await sleep(1000); })();", run_timeout=0.1),
    _failed("test_nodejs_assertion_error", "nodejs", "const assert = require('assert');\n"
            "assert.strictEqual(1, 2, '1 !== 2');", "AssertionError"),
    # HumanEval-X's JavaScript tests use console.assert, which only prints: the run succeeds
    Scenario("test_nodejs_humanevalx_assertion_error", "nodejs", "console.assert(1 === 2);",
             stderr_has="Assertion failed"),
    Scenario("test_nodejs_lodash_dep", "nodejs", "const _ = require('lodash');\nconst assert = require('assert');\n"
             "assert(_.isEqual(1, 1));", {"run_timeout": 5}),
    _stdin("test_nodejs_stdin", "nodejs",
           "process.stdin.on('data', (input) => { console.log(parseInt(input.toString())); process.exit(); });"),
    # --- typescript ---
    _print("test_typescript_print", "typescript", "console.log(123)"),
    _timeout("test_typescript_timeout", "typescript", "import util from 'util';\n"
             "const sleep = util.promisify(setTimeout);\n(async () => { await sleep(200); })();",
             run_timeout=0.1),
    _failed("test_typescript_assertion_error", "typescript", 'import assert from "assert";\n'
            "assert.strictEqual(1, 2, '1 !== 2');", "AssertionError"),
    Scenario("test_typescript_humanevalx_assertion_error", "typescript", "console.assert(1 === 2);",
             stderr_has="Assertion failed"),
    Scenario("test_typescript_lodash_dep", "typescript", 'import _ from "lodash";\nimport assert from "assert";\n'
             "assert(_.isEqual(1, 1));\nconsole.log('done');", {"run_timeout": 5}, stdout_stripped="done"),
    _stdin("test_typescript_stdin", "typescript", "process.stdin.on('data', (input: Buffer) => {\n"
           "    const num: number = parseInt(input.toString());\n    console.log(num);\n    process.exit();\n});"),
    # --- go ---
    Scenario("test_golang_print", "go", 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("123") }',
             compiled=True, stdout_stripped="123"),
    _timeout("test_golang_timeout", "go", 'package main\n\nimport "time"\n\n'
             "func main() { time.Sleep(200 * time.Millisecond) }", run_timeout=0.19, compile_timeout=1),
    _stdin("test_golang_stdin", "go",
           'package main\n\nimport "fmt"\n\nfunc main() { var n int; fmt.Scan(&n); fmt.Println(n) }'),
    # --- rust ---
    _print("test_rust_print", "rust", 'fn main() { println!("123"); }', compiled=True),
    _timeout("test_rust_timeout", "rust", "use std::{thread, time};\n"
             "fn main() { thread::sleep(time::Duration::from_millis(200)); }", run_timeout=0.1, compile_timeout=1),
    _failed("test_rust_assertion_error", "rust", "fn main() { assert_eq!(1, 2); }", "assertion"),
    _compile_error("test_rust_compile_error", "rust",
                   'fn main() {\n    let x: u32 = "Hello, world!";\n    println!("{}", x);\n}'),
    _stdin("test_rust_stdin", "rust", "use std::io;\nfn main() {\n    let mut line = String::new();\n"
           '    io::stdin().read_line(&mut line).expect("read");\n'
           '    let n: i32 = line.trim().parse().expect("a number");\n    println!("{}", n);\n}'),
    # --- bash ---
    _print("test_bash_echo", "bash", 'echo "Hello World"', "Hello World"),
    _timeout("test_bash_sleep_timeout", "bash", "sleep 0.2", run_timeout=0.1),
    _failed("test_bash_false_condition", "bash", "test 1 -eq 2", request={"run_timeout": 5}),
    _failed("test_bash_syntax_error", "bash", "if [", "syntax error", request={"run_timeout": 5}),
    Scenario("test_bash_file_read", "bash", "cat dir1/dir2/dir3/secret_flag",
             {"run_timeout": 5, "files": {"dir1/dir2/dir3/secret_flag": SECRET}}, stdout_has="hello, this is a test"),
    _stdin("test_bash_stdin", "bash", "read input\necho $input"),
    # --- lua ---
    _print("test_lua_print", "lua", 'print("Hello, World!")', "Hello, World!"),
    _timeout("test_lua_timeout", "lua", 'os.execute("sleep 3")', run_timeout=1),
    Scenario("test_lua_assertion_success", "lua", "lu = require('luaunit')\nlu.assertEquals(0, 0)"),
    _failed("test_lua_assertion_error", "lua", "lu = require('luaunit')\nlu.assertEquals(1, 2)",
            "LuaUnit test FAILURE"),
    # --- perl ---
    _print("test_perl_print", "perl", 'print "Hello, World!\\n";', "Hello, World!"),
    _timeout("test_perl_timeout", "perl", 'sleep(5);\nprint("Finished waiting for 5 seconds.")', run_timeout=1),
    Scenario("test_perl_assertion_success", "perl", "use Test::Deep;\nuse Data::Compare;\n"
             'sub test { if (eq_deeply(1, 1)) { print "ok!" } else { exit 1; } }\ntest();'),
    _failed("test_perl_assertion_error", "perl",
            'use Test::Deep;\nsub test { if (eq_deeply(0, 1)) { print "ok!" } else { exit 1; } }\ntest();'),
    # --- R ---
    _print("test_r_print", "R", 'myString <- "Hello, World!"\nprint(myString)', None, stdout_has="Hello, World!"),
    _timeout("test_r_timeout", "R", 'Sys.sleep(5)\nprint("Finished waiting for 5 seconds.")', run_timeout=5),
    Scenario("test_r_assertion_success", "R", "stopifnot(isTRUE(all.equal(0, 0)))"),
    _failed("test_r_assertion_error", "R", "stopifnot(isTRUE(all.equal(1, 0)))", "Execution halted"),
    # --- ruby ---
    _print("test_ruby_print", "ruby", 'puts "Hello, World!";', "Hello, World!"),
    _timeout("test_ruby_timeout", "ruby", "sleep(5)", run_timeout=5),
    Scenario("test_ruby_assertion_success", "ruby", "require 'test/unit'\nclass TestSandbox < Test::Unit::TestCase\n"
             "  def test_sandbox\n    assert_equal(0, 0)\n  end\nend"),
    Scenario("test_ruby_assertion_error", "ruby", "require 'test/unit'\nclass TestSandbox < Test::Unit::TestCase\n"
             "  def test_sandbox\n    assert_equal(1, 0)\n  end\nend", status="Failed", stdout_has="Failure"),
)


def test_every_scenario_of_the_suite_is_here():
    """62 scenarios over 12 languages, each once."""
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names)) == 62
    assert len({s.language for s in SCENARIOS}) == 12


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name, marks=s.marks) for s in SCENARIOS])
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_sandboxfusion_scenario(server, scenario: Scenario):
    response = httpx.post(server.url + "/run_code", timeout=120,
                          json={"language": scenario.language, "code": scenario.code, **scenario.request})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == scenario.status, body
    if scenario.compiled:
        compiled = body["compile_result"]
        assert compiled is not None and compiled["status"] == "Finished", body
        assert (compiled["return_code"] != 0) == scenario.compile_failed, body
    run = body["run_result"]
    if scenario.run is None:
        assert run is None, body
        return
    assert run is not None and run["status"] == scenario.run, body
    if scenario.stdout is not None:
        assert run["stdout"] == scenario.stdout, body
    if scenario.stdout_stripped is not None:
        assert run["stdout"].strip() == scenario.stdout_stripped, body
    assert scenario.stdout_has in run["stdout"], body
    assert scenario.stderr_has in run["stderr"], body
    for path, text in scenario.files.items():
        assert base64.b64decode(body["files"][path]).decode() == text, body


# --- the libraries SandboxFusion-style datasets import, inside the sandbox under the default limits ---------

PYTHON_LIBRARY_WORK = {  # each one doing real work (numpy's BLAS starts its threads at its first product)
    "sortedcontainers": "from sortedcontainers import SortedList\ns = SortedList([3, 1, 2])\nprint(list(s))",
    "numpy": "import numpy as np\na = np.arange(250000.0).reshape(500, 500) % 7\nprint(int((a @ a).trace()))",
    "scipy": "from scipy.optimize import brentq\nprint(round(brentq(lambda x: x * x - 2, 0, 2), 6))",
    "pandas": "import pandas as pd\nf = pd.DataFrame({'k': [1, 2, 1], 'v': [1, 2, 3]})\n"
              "print(f.groupby('k')['v'].sum().tolist())",
    "sympy": "import sympy\nx = sympy.Symbol('x')\nprint(sympy.solve(x ** 2 - 4, x))",
    "networkx": "import networkx as nx\ng = nx.path_graph(5)\nprint(nx.shortest_path(g, 0, 4))",
}
PYTHON_LIBRARY_OUTPUT = {"sortedcontainers": "[1, 2, 3]", "numpy": "2248972", "scipy": "1.414214",
                         "pandas": "[4, 2]", "sympy": "[-2, 2]", "networkx": "[0, 1, 2, 3, 4]"}


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
@pytest.mark.parametrize("library", sorted(PYTHON_LIBRARY_WORK))
def test_python_library_works_in_the_sandbox(judge, library):
    """Under the default limits, in the warm-fork runner, for several cases in a row (each a fresh fork)."""
    expected = PYTHON_LIBRARY_OUTPUT[library] + "\n"
    result = judge.judge(PYTHON_LIBRARY_WORK[library], [Case.stdio("", expected)] * 3, limits=Limits())
    assert result.verdict is Verdict.AC, [(c.verdict, c.stdout, c.stderr[-500:]) for c in result.cases]


def test_numerical_libraries_start_one_thread(judge):
    """A BLAS thread per core would count against ``processes`` and spin on the CPU-time limit."""
    code = ("import numpy as np\nnp.ones((300, 300)) @ np.ones((300, 300))\n"
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('Threads:')][0])")
    result = judge.judge(code, [Case.stdio("", "1\n")])
    assert result.verdict is Verdict.AC, result.cases[0].stdout


def test_leetcode_solution_with_sortedlist_is_accepted(judge):
    """LeetCode 315 (count of smaller numbers after self), the way its accepted solutions write it."""
    code = ("from typing import List\nfrom sortedcontainers import SortedList\n\n\nclass Solution:\n"
            "    def countSmaller(self, nums: List[int]) -> List[int]:\n        seen, counts = SortedList(), []\n"
            "        for n in reversed(nums):\n            counts.append(seen.bisect_left(n))\n"
            "            seen.add(n)\n        return counts[::-1]\n")
    cases = [Case.call("countSmaller", [[5, 2, 6, 1]], [2, 1, 1, 0]), Case.call("countSmaller", [[-1, -1]], [0, 0]),
             Case.call("countSmaller", [[3, 2, 1]], [2, 1, 0])]
    result = judge.judge(code, cases)
    assert result.verdict is Verdict.AC, [(c.verdict, c.message, c.stderr[-500:]) for c in result.cases]
    assert judge.judge(code, [Case.call("countSmaller", [[1, 2]], [1, 0])]).verdict is Verdict.WA


def test_a_failed_java_assert_is_a_runtime_error_when_judged(judge):
    """Java runs with assertions enabled in judged cases too, not only in /run_code."""
    code = ("import java.util.Scanner;\npublic class Main { public static void main(String[] a) {"
            " int n = new Scanner(System.in).nextInt(); assert n > 0 : \"n must be positive\";"
            " System.out.println(n); } }")
    result = judge.judge(code, [Case.stdio("5\n", "5\n"), Case.stdio("-5\n", "-5\n")], language="java")
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.RE]
    assert "java.lang.AssertionError: n must be positive" in result.cases[1].stderr


@pytest.mark.parametrize("language, program", [
    ("javascript", "const _ = require('lodash');\nfunction same(a, b) { return _.isEqual(a, b); }"),
    ("typescript", "import _ from 'lodash';\nfunction same(a: unknown, b: unknown) { return _.isEqual(a, b); }"),
])
def test_judged_assert_cases_find_lodash(judge, language, program):
    """In the two-process harness too, the program's side finds the libraries a single run finds."""
    tests = "const assert = require('assert');\nassert(same({a: [1]}, {a: [1]}));\nassert(!same([1], [2]));"
    result = judge.judge(program, [Case.asserts(tests)], language=language)
    assert result.verdict is Verdict.AC, (result.message, [c.stderr[-500:] for c in result.cases])
