"""judgebox.verl's transports, against real servers: what verl's reward loop relies on.

- ``sandbox_fusion_url`` picks the transport: None / "local" (the embedded judge of this process),
  ``judgebox://host:port`` (one /judge request per sample), ``http://host:port/run_code`` (a judgebox
  recognised by its /health, used through /judge; any other SandboxFusion-compatible server gets one
  /run_code request per case). The default profile scores stdio, call-based and assert cases alike over
  all of them; the verl profile always sends one /run_code request per case over HTTP.
- The "plain SandboxFusion server" is a real reverse proxy in front of ``judgebox serve`` that forwards
  /run_code only and answers 404 elsewhere (so its /health does not say judgebox); call values and assert
  evidence come back through ``fetch_files``. Every proxy counts the requests it sees.
- Retries on 429/502/503/504 and dropped connections (the proxy injects them); a server that is down is
  ``api_error`` with ``infra_error`` set, never a silent 0.
- ``concurrent_semaphore`` as None, threading.Semaphore or a multiprocessing.Manager proxy; the scorer as a
  pickled ``functools.partial``, also called in a fresh interpreter; the result dict's keys and scalar
  types for every kind of outcome (verl builds numpy arrays from them); 32 threads at once; test-case
  languages (C++, Java, js -> nodejs); loading the module as verl does; non-code data without verl.
"""

from __future__ import annotations

import base64
import functools
import importlib
import importlib.util
import json
import math
import multiprocessing
import pickle
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

import judgebox.verl
from judgebox import rewards
from judgebox.verl import (
    RESULT_KEYS,
    check_correctness,
    compute_score,
    compute_score_batch,
    default_compute_score,
    prime_compute_score,
)
from judgebox.verl.on_foreign_server import EVIDENCE_FILE, VALUE_FILE
from support.proxy import DROP, Proxy, Seen
from support.server import Server, free_port

CODE_SOURCE = "codecontests"  # one of verl's code data sources


def fenced(code: str, tag: str = "python") -> str:
    """A completion as a model writes it: prose, then the program in a fenced block."""
    return f"Here is my solution.\n```{tag}\n{code}\n```\n"


STDIO = {"inputs": ["2\n", "10\n", "7\n"], "outputs": ["4\n", "20\n", "14\n"]}
CALL = {"fn_name": "plus", "inputs": ["1\n2", "[1]\n[2]"], "outputs": ["3", "[1, 2]"]}
ASSERTS = {"assert_case": ["assert square(3) == 9", "assert square(-2) == 4"]}
ONE_CASE = {"inputs": [""], "outputs": ["1\n"]}

# label -> (completion, test cases, the score a correct judge gives)
SAMPLES: dict[str, tuple[str, Any, float]] = {
    "stdio honest": (fenced("print(2 * int(input()))"), STDIO, 1.0),
    "stdio honest, float format and trailing space": (fenced("print(f'{2 * int(input()):.2f} ')"), STDIO, 1.0),
    "stdio wrong": (fenced("print(3 * int(input()))"), STDIO, 0.0),
    "stdio wrong on one case": (fenced("n = int(input())\nprint(0 if n == 7 else 2 * n)"), json.dumps(STDIO), 2 / 3),
    "call honest, Solution method that prints": (fenced(
        "class Solution:\n    def plus(self, a, b):\n        print('debug', a, b)\n        return a + b"), CALL, 1.0),
    "call wrong": (fenced("def plus(a, b):\n    return a"), json.dumps(CALL), 0.0),
    "call raises": (fenced("def plus(a, b):\n    raise ValueError('nope')"), CALL, 0.0),
    "assert honest": (fenced("def square(x):\n    return x * x"), ASSERTS, 1.0),
    "assert wrong on one case": (fenced("def square(x):\n    return 3 * abs(x)"), ASSERTS, 0.5),
    "assert exit(0) before the asserts": (fenced("def square(x):\n    return 0\n\nexit(0)"), ASSERTS, 0.0),
}


def cases_of(test_cases: Any) -> int:
    data = json.loads(test_cases) if isinstance(test_cases, str) else test_cases
    return len(data.get("assert_case") or data["inputs"])


def score(url: str | None, label: str, **kwargs: Any) -> Any:
    completion, test_cases, _ = SAMPLES[label]
    return default_compute_score(CODE_SOURCE, completion, test_cases, sandbox_fusion_url=url, **kwargs)


# --- a real reverse proxy -------------------------------------------------------------------------------------


def fetched(seen: Seen, name: str) -> str | None:
    """A file the server sent back with its /run_code answer (``fetch_files``)."""
    content = ((seen.reply or {}).get("files") or {}).get(name)
    return None if content is None else base64.b64decode(content).decode()


@pytest.fixture(scope="module")
def sandbox_fusion(server):
    """A SandboxFusion-compatible server that is not recognised as judgebox: /run_code only, /health is 404."""
    with Proxy(server.url, forward={"/run_code"}) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def judgebox_proxy(server):
    """The judgebox server, every path passed through, its requests counted."""
    with Proxy(server.url) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def manager():
    with multiprocessing.Manager() as running:
        yield running


def down_url() -> str:
    return f"http://127.0.0.1:{free_port()}/run_code"  # nothing listens there


# --- 1. the transports ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def over_every_transport(server) -> tuple[dict[str, dict[str, dict]], list[tuple[str, str, int | None]]]:
    """(transport -> sample -> default_compute_score's dict, every request that a new plain SandboxFusion
    server received while all the samples were scored)."""
    with Proxy(server.url, forward={"/run_code"}) as plain:
        urls = {"None": None, "local": "local", "judgebox://": f"judgebox://127.0.0.1:{server.port}",
                "judgebox at /run_code": server.url + "/run_code", "plain SandboxFusion": plain.url + "/run_code"}
        results = {name: {label: score(url, label) for label in SAMPLES} for name, url in urls.items()}
        return results, [(s.method, s.path, s.status) for s in plain.seen]


def test_default_profile_scores_alike_over_every_transport(over_every_transport):
    results, plain_sandbox_fusion_requests = over_every_transport
    wrong = [f"{name} / {label}: {result['score']} != {SAMPLES[label][2]} ({result})"
             for name, by_label in results.items() for label, result in by_label.items()
             if result["score"] != pytest.approx(SAMPLES[label][2])]
    assert not wrong, "\n".join(wrong)
    fields = ("score", "acc", "passed", "total", "infra_error", "error")
    differing = [f"{label}: {name} {results[name][label]} vs embedded {results['None'][label]}"
                 for name in results for label in SAMPLES
                 if [results[name][label][k] for k in fields] != [results["None"][label][k] for k in fields]]
    assert not differing, "\n".join(differing)
    cases = sum(cases_of(test_cases) for _, test_cases, _ in SAMPLES.values())
    # asked whether it is a judgebox (it is not), then one request per case
    assert plain_sandbox_fusion_requests == [("GET", "/health", 404)] + [("POST", "/run_code", 200)] * cases


def test_default_profile_verdicts_alike_over_every_transport(over_every_transport):
    results, _ = over_every_transport
    differing = [f"{label}: {name} {results[name][label]['verdict']} vs embedded {results['None'][label]['verdict']}"
                 for name in results for label in SAMPLES
                 if results[name][label]["verdict"] != results["None"][label]["verdict"]]
    assert not differing, "\n".join(differing)


@pytest.mark.parametrize("form", ["judgebox://", "http /run_code"])
def test_a_judgebox_server_gets_one_judge_request_per_sample(server, form):
    with Proxy(server.url) as proxy:  # a new URL: its transport is made in this test
        url = f"judgebox://127.0.0.1:{proxy.port}" if form == "judgebox://" else proxy.url + "/run_code"
        labels = ["stdio wrong on one case", "call honest, Solution method that prints", "assert honest"]
        assert [score(url, label)["score"] for label in labels] == pytest.approx([2 / 3, 1.0, 1.0])
    assert [s.path for s in proxy.posts()] == ["/judge"] * len(labels)
    assert [len(s.body["cases"]) for s in proxy.posts()] == [3, 2, 2]
    # an http URL is recognised as judgebox by its /health, asked once; judgebox:// needs no asking
    expected = [] if form == "judgebox://" else [("/health", 200)]
    assert [(s.path, s.status) for s in proxy.seen if s.method == "GET"] == expected


def test_a_plain_sandbox_fusion_server_gets_one_run_code_request_per_case(sandbox_fusion):
    url = sandbox_fusion.clear().url + "/run_code"
    assert score(url, "stdio wrong on one case")["passed"] == 2
    assert len(sandbox_fusion.posts("/run_code")) == 3

    call = score(url, "call honest, Solution method that prints")  # the value comes back in a file, not stdout
    runs = sandbox_fusion.posts("/run_code")[3:]
    assert call["score"] == 1.0 and len(runs) == 2
    assert all(s.body["fetch_files"] == [VALUE_FILE] for s in runs)
    values = [json.loads(fetched(s, VALUE_FILE))["value"] for s in runs]
    assert values in ([3, [1, 2]], [[1, 2], 3])
    assert all("debug" in s.reply["run_result"]["stdout"] for s in runs)

    honest = score(url, "assert honest")  # passes on evidence: a random word written after the last assertion
    runs = sandbox_fusion.posts("/run_code")[5:]
    assert honest["score"] == 1.0 and len(runs) == 2
    for s in runs:
        assert s.body["fetch_files"] == [EVIDENCE_FILE]
        word = fetched(s, EVIDENCE_FILE)
        assert word and repr(word) in s.body["code"]

    early = score(url, "assert exit(0) before the asserts")
    runs = sandbox_fusion.posts("/run_code")[7:]
    assert (early["score"], early["verdict"], early["infra_error"]) == (0.0, "WA", False)
    assert len(runs) == 2 and all(s.reply["status"] == "Success" for s in runs)  # exit 0 ...
    assert all(fetched(s, EVIDENCE_FILE) is None for s in runs)  # ... but no evidence


@pytest.mark.parametrize("where", ["judgebox://", "judgebox at /run_code", "plain SandboxFusion"])
def test_verl_profile_sends_one_run_code_request_per_case(judgebox_proxy, sandbox_fusion, where):
    proxy = (sandbox_fusion if where == "plain SandboxFusion" else judgebox_proxy).clear()
    url = f"judgebox://127.0.0.1:{proxy.port}" if where == "judgebox://" else proxy.url + "/run_code"
    assert score(url, "stdio wrong on one case", profile="verl") == pytest.approx(2 / 3)
    assert score(url, "call honest, Solution method that prints", profile="verl") == 0.0  # verl: prints mix in
    assert [s.path for s in proxy.posts()] == ["/run_code"] * 5


# --- 2. retries and a server that is down ----------------------------------------------------------------------

@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
@pytest.mark.parametrize("fault", [429, 502, 503, 504, DROP])
def test_per_case_requests_are_retried(server, fault):
    with Proxy(server.url, forward={"/run_code"}) as flaky:
        url = flaky.url + "/run_code"
        for profile in ("verl", "judgebox"):
            flaky.clear().fail_next(fault, fault)
            result = score(url, "stdio wrong on one case", profile=profile)
            assert (result if profile == "verl" else result["score"]) == pytest.approx(2 / 3), profile
            if profile == "judgebox":
                assert result["infra_error"] is False
            statuses = [s.status for s in flaky.posts("/run_code")]
            assert statuses.count(200) == 3 and len(statuses) == 5, (profile, statuses)


def test_judge_requests_are_retried(server):
    with Proxy(server.url) as flaky:
        flaky.fail_next(503, DROP)
        assert score(f"judgebox://127.0.0.1:{flaky.port}", "call wrong")["total"] == 2
        assert [s.status for s in flaky.posts("/judge")] == [503, None, 200]


@pytest.mark.parametrize("profile", ["judgebox", "verl"])
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_a_judgebox_server_with_a_token_gets_it_on_every_request(profile, monkeypatch):
    monkeypatch.setenv("JUDGEBOX_TOKEN", "secret")
    with Server("--workers", "1", "--token", "secret") as guarded:
        completion = "```python\nprint(2 * int(input()))\n```"
        result = compute_score(f"judgebox://127.0.0.1:{guarded.port}", None, 1024, completion,
                               {"inputs": ["2", "3"], "outputs": ["4", "6"]}, profile=profile)
    assert result[0] == 1.0, [m["status"] for m in result[1]]


@pytest.mark.parametrize("form", ["http /run_code", "judgebox://"])
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_a_server_that_is_down_is_an_infra_error(form):
    url = down_url()
    if form == "judgebox://":
        url = "judgebox://" + url.removeprefix("http://").removesuffix("/run_code")
    completion, test_cases, _ = SAMPLES["stdio honest"]
    result = default_compute_score(CODE_SOURCE, completion, test_cases, sandbox_fusion_url=url)
    assert (result["score"], result["infra_error"], result["total"]) == (0.0, True, 3)
    assert result["error"]
    _, metadata = compute_score(url, None, 1024, completion, test_cases)
    assert [m["status"] for m in metadata] == ["api_error"] * 3
    assert all(m["api_request_error"] for m in metadata)

    assert default_compute_score(CODE_SOURCE, completion, test_cases, sandbox_fusion_url=url, profile="verl") == 0.0
    results, metadata = check_correctness(url, STDIO, "print(2 * int(input()))", profile="verl")
    assert results == [-1, -1, -1]
    assert [m["status"] for m in metadata] == ["api_error"] * 3


# --- 3. verl's concurrent_semaphore -----------------------------------------------------------------------------

def semaphore_of(kind: str, manager, permits: int) -> Any:
    return {"None": lambda: None, "threading": lambda: threading.Semaphore(permits),
            "manager": lambda: manager.Semaphore(permits)}[kind]()


def all_permits_back(semaphore: Any, permits: int) -> bool:
    """True when every permit can be taken again (then they are given back)."""
    taken = sum(1 for _ in range(permits) if semaphore.acquire(False))
    for _ in range(taken):
        semaphore.release()
    return taken == permits


def urls_for(server, sandbox_fusion) -> dict[str, str | None]:
    return {"embedded": None, "judgebox://": f"judgebox://127.0.0.1:{server.port}",
            "plain SandboxFusion": sandbox_fusion.url + "/run_code"}


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
@pytest.mark.parametrize("kind", ["None", "threading", "manager"])
def test_every_kind_of_semaphore_works_on_every_transport(server, sandbox_fusion, manager, kind):
    semaphore = semaphore_of(kind, manager, 2)
    labels = ["stdio wrong on one case", "call honest, Solution method that prints", "assert wrong on one case"]
    for name, url in urls_for(server, sandbox_fusion).items():
        for profile in ("judgebox", "verl"):
            with ThreadPoolExecutor(4) as pool:
                results = list(pool.map(lambda label, url=url, profile=profile: score(
                    url, label, concurrent_semaphore=semaphore, profile=profile), labels * 2))
            scores = [r if profile == "verl" else r["score"] for r in results]
            expected = [2 / 3, 0.0 if profile == "verl" else 1.0, 0.5] * 2
            assert scores == pytest.approx(expected), (name, profile)
    if semaphore is not None:
        assert all_permits_back(semaphore, 2)


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize("kind", ["threading", "manager"])
def test_a_semaphore_of_one_and_many_threads_do_not_deadlock(server, sandbox_fusion, manager, kind):
    semaphore = semaphore_of(kind, manager, 1)
    for name, url in urls_for(server, sandbox_fusion).items():
        with ThreadPoolExecutor(12) as pool:
            futures = [pool.submit(score, url, label, concurrent_semaphore=semaphore, profile=profile)
                       for label in ("stdio honest", "assert honest", "stdio wrong") for profile in ("judgebox", "verl")
                       for _ in range(2)]
            results = [f.result(timeout=300) for f in futures]  # a deadlock fails here instead of hanging
        assert [r if isinstance(r, float) else r["score"] for r in results] == [1.0] * 8 + [0.0] * 4, name
        assert all_permits_back(semaphore, 1)


# --- 4. the scorer pickled, as verl ships it to reward workers --------------------------------------------------

CHILD = """
import json, multiprocessing, pickle, sys
multiprocessing.current_process().authkey = bytes.fromhex(sys.argv[1])  # as a multiprocessing child has it
scorer = pickle.loads(sys.stdin.buffer.read())
print(json.dumps([scorer("codecontests", completion, cases) for completion, cases in json.loads(sys.argv[2])]))
"""


def scorer_partial(url: str | None, manager) -> functools.partial:
    return functools.partial(default_compute_score, sandbox_fusion_url=url, concurrent_semaphore=manager.Semaphore(4),
                             memory_limit_mb=1024)


def check_scorer(scorer: Any) -> None:
    for label in ("stdio wrong on one case", "call honest, Solution method that prints", "assert honest"):
        completion, test_cases, expected = SAMPLES[label]
        assert scorer(CODE_SOURCE, completion, test_cases)["score"] == pytest.approx(expected), label


@pytest.mark.parametrize("where", ["embedded", "judgebox://", "plain SandboxFusion"])
def test_a_pickled_partial_scores(server, sandbox_fusion, manager, where):
    original = scorer_partial(urls_for(server, sandbox_fusion)[where], manager)  # kept alive, as verl's driver does
    check_scorer(pickle.loads(pickle.dumps(original)))


def test_a_cloudpickled_partial_scores(server, manager):
    """Ray ships functions to its actors with cloudpickle."""
    import cloudpickle

    original = scorer_partial(server.url + "/run_code", manager)
    check_scorer(cloudpickle.loads(cloudpickle.dumps(original)))


@pytest.mark.slow  # about 2 s in all on this busy 2-core machine
@pytest.mark.parametrize("where", ["judgebox://", "plain SandboxFusion"])
def test_a_pickled_partial_scores_in_a_fresh_interpreter(server, sandbox_fusion, manager, where):
    labels = ["stdio wrong on one case", "call honest, Solution method that prints",
              "assert exit(0) before the asserts"]
    samples = [SAMPLES[label][:2] for label in labels]
    original = scorer_partial(urls_for(server, sandbox_fusion)[where], manager)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, multiprocessing.current_process().authkey.hex(), json.dumps(samples)],
        input=pickle.dumps(original),
        capture_output=True, timeout=300)
    assert child.returncode == 0, child.stderr.decode()
    results = json.loads(child.stdout)
    assert [r["score"] for r in results] == pytest.approx([SAMPLES[label][2] for label in labels])
    assert all(set(r) == set(RESULT_KEYS) for r in results)


# --- 5. one key set for every outcome, as verl's batch assembly needs ------------------------------------------

def test_every_outcome_has_the_same_scalar_keys():
    down = f"judgebox://127.0.0.1:{free_port()}"
    cpp_case = {"language": "cpp", "inputs": [""], "outputs": ["1\n"]}
    outcomes = {  # name -> (completion, test cases, url, timeout)
        "correct": (SAMPLES["stdio honest"][0], STDIO, None, 10),
        "wrong": (SAMPLES["stdio wrong"][0], STDIO, None, 10),
        "no code block": ("<think>Let me think about whether", STDIO, None, 10),
        "invalid test cases": (SAMPLES["stdio honest"][0], '{"inputs": ["1"], "outputs": [', None, 10),
        "infra failure": (SAMPLES["stdio honest"][0], STDIO, down, 10),
        "time limit": (fenced("while True:\n    pass"), ONE_CASE, None, 1),
        "compile error": (fenced("int main() { return }", "cpp"), cpp_case, None, 10),
    }
    infos = {name: default_compute_score(CODE_SOURCE, completion, cases, sandbox_fusion_url=url, timeout=timeout)
             for name, (completion, cases, url, timeout) in outcomes.items()}
    for name, info in infos.items():
        assert list(info) == list(RESULT_KEYS), name
        assert all(isinstance(v, (bool, int, float, str)) for v in info.values()), (name, info)
    assert {name: (info["score"], info["verdict"], info["infra_error"]) for name, info in infos.items()} == {
        "correct": (1.0, "AC", False), "wrong": (0.0, "WA", False), "no code block": (0.0, "invalid", False),
        "invalid test cases": (0.0, "invalid", True), "infra failure": (0.0, "SE", True),
        "time limit": (0.0, "TLE", False), "compile error": (0.0, "CE", False)}
    kinds = {"score": "f", "acc": "f", "passed": "i", "total": "i", "verdict": "U", "infra_error": "b", "error": "U"}
    for key in RESULT_KEYS:
        column = np.array([info[key] for info in infos.values()])
        assert column.shape == (len(infos),) and column.dtype.kind == kinds[key], (key, column)


# --- 6. many reward threads at once -----------------------------------------------------------------------------

def test_32_threads_at_once_score_as_sequential_calls_do():
    labels = [label for label in SAMPLES if label != "stdio honest, float format and trailing space"] * 4
    labels = labels[:32]
    sequential = [score(None, label) for label in labels]
    barrier = threading.Barrier(len(labels))

    def at_once(label: str) -> dict:
        assert threading.current_thread() is not threading.main_thread()
        barrier.wait(timeout=120)
        return score(None, label)

    with ThreadPoolExecutor(len(labels)) as pool:
        concurrent = list(pool.map(at_once, labels))
    assert concurrent == sequential
    assert [r["score"] for r in sequential] == pytest.approx([SAMPLES[label][2] for label in labels])


# --- 7. the test cases' language ---------------------------------------------------------------------------------

CPP = "#include <iostream>\nint main() { long n; std::cin >> n; std::cout << 2 * n << std::endl; }"
JAVA = ("import java.util.Scanner;\npublic class Main {\n    public static void main(String[] args) {\n"
        "        System.out.println(2 * new Scanner(System.in).nextLong());\n    }\n}")
JS = "const n = Number(require('fs').readFileSync(0, 'utf8').trim());\nconsole.log(2 * n);"
TWO_CASES = {"inputs": ["2\n", "21\n"], "outputs": ["4\n", "42\n"]}


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize("language, tag, code", [("cpp", "cpp", CPP), ("java", "java", JAVA)])
def test_compiled_languages_score_embedded_in_both_profiles(language, tag, code):
    test_cases = {**TWO_CASES, "language": language}
    assert default_compute_score(CODE_SOURCE, fenced(code, tag), test_cases)["score"] == 1.0
    assert default_compute_score(CODE_SOURCE, fenced(code, tag), test_cases, profile="verl") == 1.0


@pytest.mark.parametrize("language", ["js", "javascript"])
def test_javascript_is_nodejs_on_run_code(sandbox_fusion, language):
    url = sandbox_fusion.clear().url + "/run_code"
    test_cases = {**TWO_CASES, "language": language}
    assert default_compute_score(CODE_SOURCE, fenced(JS, "javascript"), test_cases, sandbox_fusion_url=url)[
        "score"] == 1.0
    assert default_compute_score(CODE_SOURCE, fenced(JS, "javascript"), test_cases, sandbox_fusion_url=url,
                                 profile="verl") == 1.0
    assert [s.body["language"] for s in sandbox_fusion.posts("/run_code")] == ["nodejs"] * 4


# --- 8. verl's loader ----------------------------------------------------------------------------------------------

def test_verl_loads_it_by_package_and_by_file_path():
    by_package = importlib.import_module("judgebox.verl").default_compute_score  # pkg://judgebox.verl
    spec = importlib.util.spec_from_file_location("custom_module_x", judgebox.verl.__file__)  # path=.../__init__.py
    module = importlib.util.module_from_spec(spec)
    sys.modules["custom_module_x"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["custom_module_x"]
    by_path = module.default_compute_score
    for scorer in (by_package, by_path):
        assert scorer(CODE_SOURCE, *SAMPLES["stdio honest"][:2])["score"] == 1.0
        assert scorer(CODE_SOURCE, *SAMPLES["assert exit(0) before the asserts"][:2])["score"] == 0.0
    assert pickle.loads(pickle.dumps(by_path)) is by_package


# --- 9. data that is not code ------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ["judgebox", "verl"])
def test_non_code_data_without_verl_is_not_implemented(profile):
    assert importlib.util.find_spec("verl") is None, "this test needs verl not to be installed"
    with pytest.raises(NotImplementedError, match=r"'openai/gsm8k'.*verl is not installed"):
        default_compute_score("openai/gsm8k", "The answer is 42.", "#### 42", profile=profile)


# verl's batch and prime entry points under ``profile="verl"`` with the judge unreachable: a judge failure is marked,
# never verl's silent 0.0.

@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_profile_verl_marks_a_judge_failure_in_the_batch_and_prime_managers():
    """Held since a verl-profile judge failure is NaN, counted and logged (it was verl's silent 0.0)."""
    url = f"http://127.0.0.1:{free_port()}/run_code"  # nothing listens: every request is refused
    before = rewards.stats()["system_errors"]
    completion, tests = "```python\nprint(input())\n```", {"inputs": ["1"], "outputs": ["1"]}
    (batch,) = compute_score_batch(["codecontests"], [completion], [tests], profile="verl", sandbox_fusion_url=url)
    prime = prime_compute_score("codecontests", completion, tests, profile="verl", sandbox_fusion_url=url)
    assert rewards.stats()["system_errors"] - before == 2
    for answer in (batch, prime):  # marked as the judgebox profile marks it, or prime's NaN
        marked = isinstance(answer, dict) and answer["infra_error"]
        assert marked or (isinstance(answer, float) and math.isnan(answer)), answer
