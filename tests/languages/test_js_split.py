"""JavaScript and TypeScript assert cases, split: the tests run in a process that never runs program code.

Three parts:

- the reward-hack battery, ``tests/adversarial/rewards/js/``: each file is a program that tries to earn reward on
  one of the problems below without solving it (a ``// why:`` header says how, ``// problem:`` which
  problem, ``// before:`` in which languages the in-process harness this replaced gave it full reward),
  judged in the sandbox as JavaScript and as TypeScript: every one must score 0, while the problem's
  honest answer scores 1;
- what crosses between the processes, through the judge (values, handles, callbacks, errors);
- the tests' side against a fake program side written here in Python, which sends what a hostile program
  could send on the channel (no hostile code runs outside the sandbox: the fake is this file's own code).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgebox import Case, Limits, Verdict
from judgebox.languages import js_split

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "rewards" / "js"
LIMITS = Limits(cpu_time=10, memory_mb=512)
LANGUAGES = ("javascript", "typescript")


@dataclass(frozen=True)
class Problem:
    honest: str
    js_tests: str
    ts_tests: str

    def tests(self, language: str) -> str:
        return self.ts_tests if language == "typescript" else self.js_tests


CUBE_CONSOLE = """const testCube = () => {
  console.assert(cube(3) === 27)
  console.assert(cube(-2) === -8)
  console.assert(JSON.stringify([cube(1), cube(0)]) === JSON.stringify([1, 0]))
}

testCube()
"""
CUBE_JSON = """const testCube = () => {
  console.assert(JSON.stringify(cube(3)) === JSON.stringify(27))
  console.assert(JSON.stringify([cube(-2), cube(0)]) === JSON.stringify([-8, 0]))
}

testCube()
"""
CUBE_ASSERT = """function test() {
  let candidate = cube;
  assert.deepEqual(candidate(3), 27);
  assert.deepEqual(candidate(-2), -8);
  assert.strictEqual(candidate(0), 0);
}

test();
"""
SORT_BY = """function test() {
  assert.deepStrictEqual(sortBy([3, 1, 2], (a, b) => a - b), [1, 2, 3]);
  assert.deepStrictEqual(sortBy(['ccc', 'a', 'bb'], (a, b) => a.length - b.length), ['a', 'bb', 'ccc']);
}

test();
"""
CUBE_ASYNC = """(async () => {
  assert.strictEqual(await cube(3), 27);
  assert.strictEqual(await cube(2), 8);
})();
"""
REQUIRE, IMPORT = "const assert = require('node:assert');\n", "import assert from \"assert\";\n"
PROBLEMS = {
    "cube": Problem("const cube = (n) => n ** 3;\n", CUBE_CONSOLE, CUBE_CONSOLE),
    "cube_json": Problem("const cube = (n) => n ** 3;\n", CUBE_JSON, CUBE_JSON),
    "cube_assert": Problem("function cube(n) {\n  return n * n * n;\n}\n", REQUIRE + CUBE_ASSERT,
                           IMPORT + CUBE_ASSERT),
    "sort_by": Problem("const sortBy = (xs, cmp) => [...xs].sort(cmp);\n", REQUIRE + SORT_BY,
                       "declare var require: any;\n" + REQUIRE + SORT_BY),
    "cube_async": Problem("const cube = (n) => n ** 3;\n", REQUIRE + CUBE_ASYNC, IMPORT + CUBE_ASYNC),
}


@dataclass(frozen=True)
class Hack:
    name: str
    why: str
    problem: str
    program: str
    before: tuple[str, ...]  # where the in-process harness rewarded it


def load(path: Path) -> Hack:
    headers: dict[str, str] = {}
    lines = path.read_text().splitlines()
    while lines and (match := re.fullmatch(r"// ([a-z]+): (.*)|//  +(\S.*)", lines[0])):
        if match[1]:
            headers[match[1]] = match[2].strip()
        else:
            headers[list(headers)[-1]] += " " + match[3].strip()
        lines.pop(0)
    assert {"why", "problem"} <= set(headers) <= {"why", "problem", "before"}, f"{path.name}: unknown headers"
    assert headers["problem"] in PROBLEMS, f"{path.name}: unknown problem {headers['problem']!r}"
    before = tuple(headers.get("before", "").split())
    assert set(before) <= {"js", "ts"}, f"{path.name}: 'before' lists js and/or ts"
    return Hack(path.name, headers["why"], headers["problem"], "\n".join(lines) + "\n", before)


BATTERY = [load(path) for path in sorted(HACKS.glob("*.js"))]


def judged(judge, program: str, tests: str, language: str):
    return judge.judge(program, [Case.asserts(tests)], language=language, limits=LIMITS)


def _detail(result) -> str:
    case = result.cases[0] if result.cases else None
    return f"{result.verdict} {result.message} {case.message if case else ''} {case.stderr[-1500:] if case else ''}"


# -- the battery ----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("hack", BATTERY, ids=[hack.name for hack in BATTERY])
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_reward_hack_scores_zero(judge, hack: Hack, language: str) -> None:
    result = judged(judge, hack.program, PROBLEMS[hack.problem].tests(language), language)
    assert result.score == 0.0 and result.verdict is not Verdict.SE, _detail(result)


@pytest.mark.slow  # about 11 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_honest_answer_scores_one(judge, problem: str, language: str) -> None:
    """The battery's 0s come from the judge seeing through the hacks, not from tests nothing passes."""
    result = judged(judge, PROBLEMS[problem].honest, PROBLEMS[problem].tests(language), language)
    assert result.verdict is Verdict.AC, _detail(result)


def test_the_battery_covers_the_known_routes() -> None:
    assert len(BATTERY) >= 15
    assert sum(bool(hack.before) for hack in BATTERY) >= 8  # routes that were open before the split
    assert {hack.problem for hack in BATTERY} == set(PROBLEMS)


# -- what crosses, through the judge ----------------------------------------------------------------

VALUES_PROGRAM = """
const values = () => ({ m: new Map([[1, 'a'], ['k', [2n]]]), s: new Set([1, 'x']), d: new Date(86400000),
  big: -(2n ** 70n), nan: NaN, neg: -0, u: undefined, inf: -Infinity, nul: null, text: 'é\\ud800',
  nested: [[1, [2, [3]]], {}], bare: Object.assign(Object.create(null), { k: 1 }), fn: (x) => x * 2 });
class Counter { constructor(n) { this.n = n; } inc() { return ++this.n; } static zero() { return new Counter(0); } }
let MOD = 7;
function bump() { MOD += 1; return MOD; }
const apply = (f, x) => f(x) + f(x + 1);
const backAgain = (f) => f;
const makeAdder = (a) => (b) => a + b;
const boom = () => { throw new RangeError('too far'); };
const alien = () => { throw 42; };
const mutate = (xs) => { xs.push(1); return xs.length; };
"""
VALUES_TESTS = """const assert = require('assert');
const v = values();
assert.deepStrictEqual(v.m, new Map([[1, 'a'], ['k', [2n]]]));
assert.deepStrictEqual(v.s, new Set([1, 'x']));
assert.deepStrictEqual(v.d, new Date(86400000));
assert.strictEqual(v.big, -(2n ** 70n));
assert(Number.isNaN(v.nan)); assert(Object.is(v.neg, -0)); assert.strictEqual(v.inf, -Infinity);
assert('u' in v && v.u === undefined); assert.strictEqual(v.nul, null); assert.strictEqual(v.text, 'é\\ud800');
assert.deepStrictEqual(v.nested, [[1, [2, [3]]], {}]);
assert.strictEqual(Object.getPrototypeOf(v.bare), null); assert.strictEqual(v.bare.k, 1);
assert.strictEqual(v.fn(21), 42);
const c = new Counter(3); assert.strictEqual(c.inc(), 4); assert.strictEqual(c.inc(), 5); assert.strictEqual(c.n, 5);
assert(c instanceof Counter); assert(!(({}) instanceof Counter)); assert.deepStrictEqual(Object.keys(c), ['n']);
assert.strictEqual(JSON.stringify(c), '{"n":5}'); assert.deepEqual({ ...c }, { n: 5 });
assert.strictEqual(Counter.zero().inc(), 1);
assert.strictEqual(MOD, 7); assert.strictEqual(bump(), 8); assert.strictEqual(MOD, 8);
assert.strictEqual(apply((x) => x * 10, 1), 30);
const mine = (x) => x; assert.strictEqual(backAgain(mine), mine);
assert.strictEqual(makeAdder(2)(3), 5);
assert.throws(() => boom(), (e) => e instanceof RangeError && e.message === 'too far');
assert.throws(() => alien(), (e) => e instanceof Error && e.message === '42 was thrown');
const xs = [0]; assert.strictEqual(mutate(xs), 2); assert.deepStrictEqual(xs, [0]);  // by value
assert.strictEqual(typeof Counter, 'function'); assert.strictEqual(typeof MOD, 'number');
console.assert(true);
"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_values_handles_callbacks_and_errors_cross(judge, language: str) -> None:
    result = judged(judge, VALUES_PROGRAM, VALUES_TESTS, language)
    assert result.verdict is Verdict.AC, _detail(result)


@pytest.mark.slow  # about 7 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("tests, verdict", [
    ("console.assert(cube(2) === 9)", Verdict.WA),  # console.assert only logs: it is made to count
    ("require('assert').strictEqual(cube(2), 9)", Verdict.WA),
    ("require('assert')(twice((x) => { require('assert').strictEqual(x, 5); return 1; }) === 1)",
     Verdict.WA),  # a failed assertion inside a callback counts even though the program swallowed it
    ("Promise.reject(new Error('late'))", Verdict.RE),
    ("console.assert(cube(2) === 8); missing()", Verdict.RE),
    ("setTimeout(() => console.assert(cube(2) === 9), 10)", Verdict.WA),  # asynchronous tests run to the end
])
def test_failures(judge, tests: str, verdict: Verdict, language: str) -> None:
    program = ("const cube = (n) => n ** 3;\n"
               "const twice = (f) => { let n = 0;\n"
               "  for (const x of [5, 6]) { try { n += f(x); } catch (_) {} }\n  return n; };\n")
    result = judged(judge, program, tests, language)
    assert result.verdict is verdict, _detail(result)


def test_a_program_that_throws_at_the_top_level_is_a_runtime_error(judge) -> None:
    result = judged(judge, "const cube = (n) => n ** 3;\nthrow new Error('no');\n", "console.assert(cube(1) === 1)",
                    "javascript")
    assert result.verdict is Verdict.RE, _detail(result)
    assert "Error: no" in result.cases[0].stderr


def test_program_names_do_not_shadow_the_tests_world(judge) -> None:
    """A program's ``Math`` or ``assert`` is not what the tests use; its other names are."""
    program = "var Math = { max: () => 0 };\nfunction assert() {}\nconst best = (xs) => Math.max(...xs);\n"
    tests = "const assert = require('assert'); assert.strictEqual(Math.max(1, 2), 2); assert.strictEqual(best([1]), 0);"
    assert judged(judge, program, tests, "javascript").verdict is Verdict.AC


def test_modules_the_program_plants_never_load_in_the_tests_process(judge) -> None:
    """The work folder is shared: a module the program writes there is not what the tests' require finds."""
    program = ("const fs = require('fs');\nconst payload = \"console.log('PLANTED'); module.exports = () => {};\";\n"
               "for (const dir of [\n"
               "  '/tmp/node_modules/helper', '/tmp/.node_modules/helper', '/tmp/.node_libraries/helper']) {\n"
               "  fs.mkdirSync(dir, { recursive: true }); fs.writeFileSync(dir + '/index.js', payload);\n}\n"
               "fs.writeFileSync('/tmp/helper.js', payload);\nconst cube = (n) => n ** 3;\n")
    tests = ("let loaded = 0;\nfor (const name of ['helper', './helper', '/tmp/helper.js']) {\n"
             "  try { require(name); loaded += 1; } catch (_) {}\n}\nconsole.assert(loaded === 0 && cube(2) === 8);\n")
    for language in LANGUAGES:
        result = judged(judge, program, tests, language)
        assert result.verdict is Verdict.AC and "PLANTED" not in result.cases[0].stdout, _detail(result)


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_the_program_and_each_test_code_are_built_once(judge) -> None:
    """The program once for all its cases; each distinct test code once (TypeScript tests are transpiled)."""
    program = "const cube = (n) => n ** 3;\n// built once " + secrets.token_hex(8) + "\n"
    cases = [Case.asserts(f"console.assert(cube({n}) === {n ** 3}) // {program[-9:-1]}") for n in range(4)]
    misses = judge._programs.cache.misses
    assert judge.judge(program, cases, language="typescript", limits=LIMITS).verdict is Verdict.AC
    assert judge._programs.cache.misses - misses == 1 + len(cases)
    assert judge.judge(program, cases, language="typescript", limits=LIMITS).verdict is Verdict.AC
    assert judge._programs.cache.misses - misses == 1 + len(cases)


@pytest.mark.parametrize("language", LANGUAGES)
def test_tests_that_do_not_compile_are_not_the_programs_fault(judge, language: str) -> None:
    result = judged(judge, "const cube = (n) => n ** 3;\n", "console.assert(cube(1) === 1", language)
    assert result.verdict is Verdict.SE and "the test code does not compile" in result.message, _detail(result)


# -- the tests' side against a fake program side ----------------------------------------------------


def _memfd(data: bytes = b"") -> int:
    fd = os.memfd_create("judgebox-test")
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class FakeProgramSide:
    """The tests' process, started directly (no sandbox: it runs only the harness and our tests), with
    this object as the program's side of the channel."""

    def __init__(self, tests: str) -> None:
        self.token = secrets.token_bytes(32)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock = ours
        self.report, self.stderr = _memfd(), _memfd()
        mapping = {1: _memfd(), 2: self.stderr, 3: self.report, 4: _memfd(self.token), 5: _memfd(b""),
                   6: _memfd(tests.encode()), 7: theirs.detach()}

        def arrange() -> None:
            copies = {fd: os.dup(fd) for fd in mapping.values()}
            for target, source in mapping.items():
                os.dup2(copies[source], target)
            os.closerange(8, 4096)

        self.process = subprocess.Popen(list(js_split.TESTS_ARGV), preexec_fn=arrange, close_fds=False,
                                        cwd="/tmp", env={"PATH": "/usr/bin:/bin", "NODE_PATH": "/usr/share/nodejs"})
        for fd in mapping.values():
            if fd not in (self.report, self.stderr):
                os.close(fd)
        self.sock.settimeout(20)

    def send(self, message) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def receive(self) -> dict:
        head = self._exact(4)
        return json.loads(self._exact(struct.unpack(">I", head)[0]))

    def _exact(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def finish(self) -> tuple[int, bytes, str]:
        self.sock.close()
        code = self.process.wait(timeout=30)
        report = os.pread(self.report, 4096, 0)
        stderr = os.pread(self.stderr, 1 << 16, 0).decode(errors="replace")
        os.close(self.report)
        os.close(self.stderr)
        return code, report, stderr

    def passed(self, report: bytes) -> bool:
        return report == b"asserts\n" + self.token


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize("reply", [
    {"o": [["__proto__", {"o": [["polluted", True]]}]]},  # an own key, never the prototype
    {"c": 0}, {"c": 99},  # the tests' callbacks: only those they passed
    {"h": -1}, {"h": 1.5}, {"f": "x"}, {"n": "toString"}, {"n": "constructor"}, {"b": "1e3"}, {"b": "0x10"},
    {"a": [1], "o": []}, {"x": 1}, [1, 2], {"o": [[{"u": 0}, 1]]}, {"o": [["k"]]}, {"d": "2020"}, {"s": 5},
    {"o": [["then", {"f": 0}]]},
])
def test_the_tests_side_refuses_or_contains_what_the_program_sends(reply) -> None:
    """Whatever comes back, the tests' comparison sees only data it rebuilt itself."""
    tests = ("const got = f(() => 1);\n"
             "console.assert(({}).polluted === undefined && Object.prototype.polluted === undefined);\n"
             "console.assert(typeof got !== 'function' || got() !== 1);\n"
             "console.assert(JSON.stringify(got) === JSON.stringify({ expected: true }));\n")
    fake = FakeProgramSide(tests)
    fake.send({"op": "ready", "names": [["f", True]]})
    request = fake.receive()
    assert request["op"] == "call" and request["ref"] == {"n": "f"} and request["args"] == [{"c": 0}]
    fake.send({"op": "ret", "v": reply})
    try:  # answer whatever else the tests ask (a handle's properties) with nothing useful
        while True:
            fake.receive()
            fake.send({"op": "ret", "v": {"u": 0}})
    except (EOFError, OSError):
        pass
    code, report, stderr = fake.finish()
    assert not fake.passed(report) and code != 0, (report, stderr)


@pytest.mark.parametrize("message", [
    b"not json", b"null", b"[]", json.dumps({"op": "exit", "code": 0}).encode(),
    json.dumps({"op": "cb", "id": 7}).encode(),
    json.dumps({"op": "ret", "v": "x" * 100}).encode()[:50],
])
def test_a_broken_or_forged_channel_never_passes(message: bytes) -> None:
    fake = FakeProgramSide("console.assert(f() === 1)")
    fake.send({"op": "ready", "names": [["f", True]]})
    fake.receive()
    fake.send(message)
    code, report, stderr = fake.finish()
    assert not fake.passed(report), (code, report, stderr)


def test_a_callback_answers_only_data_and_sees_only_data() -> None:
    tests = "const seen = []; console.assert(f((x) => { seen.push(x); return () => 1; }) === 1);"
    fake = FakeProgramSide(tests)
    fake.send({"op": "ready", "names": [["f", True]]})
    assert fake.receive()["args"] == [{"c": 0}]
    fake.send({"op": "cb", "id": 0, "args": [{"o": [["__proto__", 1]]}]})
    answer = fake.receive()
    assert answer == {"op": "err", "name": "TypeError",
                      "message": "a callback of the tests returned a value that is not data"}
    fake.send({"op": "ret", "v": 1})
    _, report, stderr = fake.finish()
    assert fake.passed(report), stderr  # the fake answered 1, a correct answer: the tests pass


def test_a_value_bigger_than_the_bound_is_refused() -> None:
    fake = FakeProgramSide("let failed = false; try { f(); } catch (e) { failed = e instanceof RangeError; }"
                           " console.assert(failed);")
    fake.send({"op": "ready", "names": [["f", True]]})
    fake.receive()
    fake.sock.sendall(struct.pack(">I", (64 << 20) + 1))
    _, report, stderr = fake.finish()
    assert fake.passed(report), stderr


def test_nesting_beyond_the_bound_is_refused() -> None:
    fake = FakeProgramSide("let failed = false; try { f(); } catch (e) { failed = e instanceof RangeError; }"
                           " console.assert(failed);")
    fake.send({"op": "ready", "names": [["f", True]]})
    fake.receive()
    fake.send(b'{"op": "ret", "v": ' + b'{"a": [' * 5000 + b"1" + b"]}" * 5000 + b"}")
    _, report, stderr = fake.finish()
    assert fake.passed(report), stderr
