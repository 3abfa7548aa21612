"""Every error a caller can get is a ``judgebox.JudgeboxError``: the tree of ``judgebox/errors.py``, and each
public entry point given bad input. None of these starts a sandbox: each input is refused first (the
entry points that need a running judge for it are tested in tests/judging/test_api.py)."""

from __future__ import annotations

import ast
import asyncio
import re
import sys
from pathlib import Path

import pytest

import judgebox
from judgebox import Case, errors

CASES = [Case.stdio("1\n", "1\n")]
VERL_CASES = {"inputs": ["1"], "outputs": ["1"]}
COMPLETION = "```python\nprint(input())\n```"
PACKAGE = Path(judgebox.__file__).parent


def exception_classes() -> dict[str, type[BaseException]]:
    return {name: value for name, value in vars(errors).items()
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == errors.__name__}


# -- the tree ----------------------------------------------------------------------------------------------

def drawn_tree() -> dict[str, str | None]:
    """Each class the docstring of judgebox/errors.py draws, and the class it hangs under."""
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    lines = iter(errors.__doc__.splitlines())
    for line in lines:
        if line.strip() == "JudgeboxError":
            parents["JudgeboxError"], stack = None, ["JudgeboxError"]
            break
    for line in lines:
        if not line.strip():
            break
        drawn = re.match(r"^(\s*(?:[│ ]   )*)[├└]── (\w+)", line)
        if drawn is None:
            continue  # a description running on
        depth = len(drawn.group(1).expandtabs()) // 4  # the tree starts 4 columns in: depth 1 under the root
        del stack[depth:]
        parents[drawn.group(2)] = stack[-1]
        stack.append(drawn.group(2))
    return parents


def test_the_docstring_draws_every_exception_under_its_own_parent():
    drawn, defined = drawn_tree(), exception_classes()
    assert set(drawn) == set(defined), "errors.py's docstring must draw exactly the classes errors.py defines"
    for name, parent in drawn.items():
        if parent is not None:
            assert defined[name].__bases__[0] is defined[parent], f"{name} is drawn under {parent}"


def test_every_exception_is_a_judgebox_error_listed_in_all():
    for name, cls in exception_classes().items():
        assert issubclass(cls, errors.JudgeboxError), name
    assert set(errors.__all__) == set(exception_classes())


@pytest.mark.parametrize("name, builtin", [
    ("InvalidInput", ValueError), ("UnknownPreset", ValueError), ("UnknownAddress", ValueError),
    ("BadRecord", ValueError), ("UnreadableFile", ValueError), ("JudgeClosed", RuntimeError),
    ("SandboxError", RuntimeError), ("RayUnavailable", ImportError), ("ClusterUnreachable", ConnectionError),
    ("DeadlineExceeded", TimeoutError), ("UnsupportedDataSource", NotImplementedError),
])
def test_builtin_bases_are_kept_for_existing_except_clauses(name, builtin):
    assert issubclass(getattr(errors, name), builtin)


def test_the_classes_kept_near_their_code_are_the_same_objects():
    from judgebox import client
    from judgebox.backends import ray
    from judgebox.client import answers
    from judgebox.tools import score
    from judgebox.tools.score import records

    for module, names in ((client, ("ClientError", "BadAnswer", "ServerRejected", "ServerUnavailable",
                                    "DeadlineExceeded")),
                          (answers, ("ClientError", "DeadlineExceeded")),
                          (ray, ("RayUnavailable", "ClusterUnreachable")),
                          (score, ("BadRecord",)), (records, ("BadRecord", "UnreadableFile"))):
        for name in names:
            assert getattr(module, name) is getattr(errors, name), f"{module.__name__}.{name}"


# Exception classes that stay where they are: none reaches a caller (each is caught and turned into a verdict,
# an SE, an HTTP answer or a retry inside judgebox, or lives in the sandbox's own processes).
INTERNAL = {
    "sandbox/inside/split/errors.py": {"ProgramError"},  # the split run's tests process: the program's fault, a verdict
    "sandbox/inside/zygote.py": {"Poisoned"},  # inside the zygote: a run's setup failed, the slot restarts
    "sandbox/slot.py": {"FoldersUnavailable", "SlotFailure"},  # the pool retries on a new slot, or SE
    "languages/rust_split/lexer.py": {"Unsupported"},  # a signature outside the grammar: no stub made
    "languages/cpp_split/signatures.py": {"Unsupported"},
    "languages/go_split.py": {"Unsupported"},
    "languages/java_split/description.py": {"Skip"},  # a member outside the grammar: skipped
    "judging/dedupe.py": {"Unkeyable", "Abandoned"},  # judged without the cache / judged again
    "server/admission.py": {"Overloaded", "ClientGone"},  # HTTP 504/429, or nothing to answer
    "server/middleware.py": {"_TooLarge"},  # HTTP 413
    "tools/bench.py": {"WrongResult"},  # `judgebox bench`: the benchmark is void, its exit status says so
    "datasets/rows.py": {"Refused"},  # the dataset API's refusal: HTTP 400 with SandboxFusion's text
    "datasets/online_judge.py": {"JudgeFailed"},  # /submit's judge failure: HTTP 503, never a rejected answer
    "sandbox/inside/jupyter.py": {"SetupFailed"},  # inside the sandbox: no kernel, the run is SE
}


def test_no_other_exception_class_is_defined_outside_errors_py():
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("languages/harnesses/") or relative == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    re.search(r"(Error|Exception|Exit|Warning)$", ast.unparse(base)) for base in node.bases):
                found.setdefault(relative, set()).add(node.name)
    assert found == INTERNAL, "a new exception a caller can get belongs in judgebox/errors.py"


# -- the entry points, given bad input -----------------------------------------------------------------------

@pytest.mark.parametrize("options, error", [
    ({"slots": "x"}, errors.InvalidInput), ({"slots": 0}, errors.InvalidInput), ({"slots": -1}, errors.InvalidInput),
    ({"slots": True}, errors.InvalidInput), ({"slots": 2.0}, errors.InvalidInput),
    ({"config": "x"}, errors.InvalidInput), ({"config": {}}, errors.InvalidInput),
    ({"dedupe": "on"}, errors.InvalidInput),
])
def test_judge_refuses_bad_options_before_it_starts(options, error):
    with pytest.raises(error):
        judgebox.Judge(**options)


@pytest.mark.parametrize("address, options, error", [
    ("spark://127.0.0.1:7077", {}, errors.UnknownAddress), ("", {}, errors.UnknownAddress),
    ("http://127.0.0.1:9", {"concurrency": 0}, errors.InvalidInput),
    ("ray://", {"slots": "x"}, errors.InvalidInput), ("local", {"slots": 0}, errors.InvalidInput),
])
def test_connect_refuses_bad_addresses_and_options_before_it_starts(address, options, error):
    with pytest.raises(error):
        judgebox.connect(address, **options)


def test_the_ray_backend_without_ray_is_ray_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(errors.RayUnavailable, match=r"judgebox\[ray\]") as caught:
        judgebox.connect("ray://")
    assert isinstance(caught.value, ImportError)


@pytest.mark.parametrize("arguments, error", [
    ((None, CASES), errors.InvalidCode), ((42, CASES), errors.InvalidCode), (("", CASES), errors.InvalidCode),
    (("print(1)", None), errors.InvalidCases), (("print(1)", 42), errors.InvalidCases),
    (("print(1)", "not json"), errors.InvalidCases), (("print(1)", [42]), errors.InvalidCases),
    (("print(1)", {"inputs": ["1"], "outputs": []}), errors.InvalidCases), (("print(1)", []), errors.InvalidCases),
    (("print(1)", CASES, "cobol"), errors.UnknownLanguage), (("print(1)", CASES, None), errors.UnknownLanguage),
    (("print(1)", CASES, "python", "x"), errors.InvalidLimits),
    (("print(1)", CASES, "python", {"cpu_time": 1}), errors.InvalidLimits),
    (("print(1)", CASES, "python", None, "nope"), errors.UnknownChecker),
    (("print(1)", CASES, "python", None, 42), errors.UnknownChecker),
])
def test_judge_submission_refuses_bad_input(arguments, error):
    with pytest.raises(error):
        judgebox.Judge.submission(*arguments)


@pytest.mark.parametrize("make, error", [
    (lambda: judgebox.Limits(cpu_time=-1), errors.InvalidLimits),
    (lambda: judgebox.Limits(cpu_time="x"), errors.InvalidLimits),
    (lambda: Case.stdio(42, "1"), errors.InvalidCases),
    (lambda: Case.call("f", 5, 1), errors.InvalidCases),
])
def test_records_refuse_bad_fields(make, error):
    with pytest.raises(error):
        make()


@pytest.mark.parametrize("name", ["nope", None, ["judgebox"]])
def test_an_unknown_preset_is_unknown_preset(name):
    from judgebox import presets

    with pytest.raises(errors.UnknownPreset, match="unknown preset"):
        presets.get(name)


def verl_calls():
    from judgebox import verl

    return {
        "compute_score": lambda **kw: verl.compute_score(**{
            "sandbox_fusion_url": None, "concurrent_semaphore": None, "memory_limit_mb": 1024,
            "completion": COMPLETION, "test_cases": VERL_CASES, **kw}),
        "check_correctness": lambda **kw: verl.check_correctness(**{
            "sandbox_fusion_url": None, "in_outs": VERL_CASES, "generation": "print(input())", **kw}),
        "default_compute_score": lambda **kw: verl.default_compute_score("apps", COMPLETION, VERL_CASES, **kw),
        "prime_compute_score": lambda **kw: verl.prime_compute_score("apps", COMPLETION, VERL_CASES, **kw),
        "compute_score_batch": lambda **kw: verl.compute_score_batch(["apps"], [COMPLETION], [VERL_CASES], [None],
                                                                     **kw),
        "async_compute_score": lambda **kw: asyncio.run(verl.async_compute_score("apps", COMPLETION, VERL_CASES,
                                                                                 **kw)),
    }


@pytest.mark.parametrize("function", sorted(verl_calls()))
def test_every_verl_function_refuses_an_unknown_profile(function):
    with pytest.raises(errors.UnknownPreset, match="profile must be one of"):
        verl_calls()[function](profile="nope")


@pytest.mark.parametrize("function", ["compute_score", "check_correctness", "default_compute_score"])
def test_binary_with_the_verl_profile_is_invalid_input(function):
    with pytest.raises(errors.InvalidInput, match="binary is judgebox's option"):
        verl_calls()[function](profile="verl", binary=True)


@pytest.mark.parametrize("url", ["ftp://judge:8080", 42, "", ["http://a:1/run_code", "judgebox://b:2"],
                                 ["http://a:1/run_code", "http://b:2/other"]])
@pytest.mark.parametrize("function", ["compute_score", "default_compute_score", "async_compute_score"])
def test_an_unusable_sandbox_fusion_url_is_unknown_address(function, url):
    with pytest.raises(errors.UnknownAddress):
        verl_calls()[function](sandbox_fusion_url=url)


def test_a_sample_that_is_not_code_without_verl_is_unsupported_data_source():
    try:
        import verl  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("verl is installed: it scores the sample")
    from judgebox import verl as judgebox_verl

    with pytest.raises(errors.UnsupportedDataSource, match="openai/gsm8k") as caught:
        judgebox_verl.default_compute_score("openai/gsm8k", "#### 42", "42")
    assert isinstance(caught.value, NotImplementedError)


@pytest.mark.parametrize("samples, options, error", [
    (42, {}, errors.InvalidInput), ({"code": "print(1)"}, {}, errors.InvalidInput), ([42], {}, errors.InvalidInput),
    ([{"code": "print(1)"}], {}, errors.InvalidInput),
    ([{"code": "print(1)", "test_cases": VERL_CASES, "bogus": 1}], {}, errors.InvalidInput),
    ([], {"preset": "nope"}, errors.UnknownPreset), ([], {"in_flight": 0}, errors.InvalidInput),
    ([], {"limits": "x"}, errors.InvalidLimits),
    ([{"code": "print(1)", "test_cases": VERL_CASES, "limits": {"cpu_time": -1}}], {}, errors.InvalidLimits),
])
def test_rewards_refuse_bad_batches(samples, options, error):
    from judgebox import rewards

    with pytest.raises(error):
        rewards.score_batch_sync(samples, **options)


def test_reward_refuses_an_unknown_preset():
    from judgebox import rewards

    with pytest.raises(errors.UnknownPreset):
        rewards.reward(judgebox.JudgeResult(judgebox.Verdict.AC, (), 0), preset="nope")


@pytest.mark.parametrize("make, error", [
    (lambda trl: trl.reward_function(test_cases_column=3), errors.InvalidInput),
    (lambda trl: trl.reward_function(preset="nope"), errors.UnknownPreset),
    (lambda trl: trl.reward_function(language=3), errors.InvalidInput),
    (lambda trl: trl.reward_function()(prompts=["p"], completions=["c"]), errors.InvalidInput),
    (lambda trl: trl.completion_text(42), errors.InvalidInput),
    (lambda trl: trl.completion_text([{"role": "user", "content": "hi"}]), errors.InvalidInput),
])
def test_trl_refuses_bad_input(make, error):
    from judgebox import trl

    with pytest.raises(error):
        make(trl)


@pytest.mark.parametrize("query, error", [
    ({"x": "1"}, errors.InvalidInput), ({"preset": "nope"}, errors.UnknownPreset),
    ({"binary": "maybe"}, errors.InvalidInput),
])
def test_openrlhf_settings_refuse_bad_query_strings(query, error):
    from judgebox import openrlhf

    with pytest.raises(error):
        openrlhf.settings(query)


def test_openrlhf_refuses_a_query_without_its_prompt_before_judging():
    from judgebox import openrlhf
    from judgebox.wire.schemas import RewardModelRequest

    body = RewardModelRequest(query=["something else"], prompts=["the prompt"], labels=[VERL_CASES])
    with pytest.raises(errors.InvalidInput, match="sample 0"):
        asyncio.run(openrlhf.score(body, judge=None))


@pytest.mark.parametrize("url, options, error", [
    ("", {}, errors.UnknownAddress), ([], {}, errors.UnknownAddress), (42, {}, errors.UnknownAddress),
    (",".join(f"http://h{i}:1" for i in range(65)), {}, errors.UnknownAddress),
    ("http://127.0.0.1:9", {"concurrency": 0}, errors.InvalidInput),
    ("http://127.0.0.1:9", {"concurrency": "x"}, errors.InvalidInput),
])
@pytest.mark.parametrize("kind", ["Client", "AsyncClient"])
def test_a_client_refuses_bad_addresses_and_options(kind, url, options, error):
    from judgebox import client

    with pytest.raises(error):
        getattr(client, kind)(url, **options)


@pytest.mark.parametrize("call, error", [
    (lambda c: c.judge("print(1)", test_cases="not json"), errors.InvalidCases),
    (lambda c: c.judge("print(1)", cases=42), errors.InvalidCases),
    (lambda c: c.judge("print(1)", cases=[42]), errors.InvalidInput),
    (lambda c: c.judge("print(1)", cases=[{"stdin": "", "expected_output": ""}], limits="x"), errors.InvalidInput),
    (lambda c: c.judge_batch([42]), errors.InvalidInput),
    (lambda c: c.run_code("print(1)", files=42), errors.InvalidInput),
])
def test_a_client_refuses_what_it_cannot_send_before_sending(call, error):
    from judgebox.client import Client

    with Client("http://127.0.0.1:9", timeout=5, max_attempts=1) as client, pytest.raises(error):
        call(client)


def test_a_closed_client_is_judge_closed():
    from judgebox.client import AsyncClient, Client

    client = Client("http://127.0.0.1:9", timeout=5, max_attempts=1)
    client.close()
    assert client.closed
    with pytest.raises(errors.JudgeClosed) as caught:
        client.run_code("print(1)")
    assert isinstance(caught.value, RuntimeError)
    with pytest.raises(errors.JudgeClosed):
        client.judge("print(1)", cases=[{"stdin": "", "expected_output": ""}])

    async def closed_async() -> None:
        async_client = AsyncClient("http://127.0.0.1:9", timeout=5, max_attempts=1)
        await async_client.aclose()
        await async_client.ping()

    with pytest.raises(errors.JudgeClosed):
        asyncio.run(closed_async())


def test_a_closed_server_judge_is_judge_closed():
    judge = judgebox.connect("http://127.0.0.1:9")
    judge.close()
    with pytest.raises(errors.JudgeClosed):
        judge.judge("print(1)", CASES)
    with pytest.raises(errors.JudgeClosed):
        asyncio.run(judge.judge_async("print(1)", CASES))


def test_calibrate_refuses_bad_input_before_judging():
    from judgebox.tools.calibrate import Calibration, calibrate

    with pytest.raises(errors.InvalidLimits):
        Calibration(factor=0.5)
    with pytest.raises(errors.InvalidCases):
        calibrate(None, "print(1)", 42)  # type: ignore[arg-type]


def test_summarize_file_refuses_what_is_not_a_results_file(tmp_path):
    from judgebox.tools.score import pass_at_k, summarize_file

    with pytest.raises(errors.UnreadableFile, match=r"missing\.jsonl"):
        summarize_file(tmp_path / "missing.jsonl")
    other = tmp_path / "other.jsonl"
    other.write_text('{"a": 1}\n')
    for path in (other, str(other)):
        with pytest.raises(errors.UnreadableFile, match="not a judgebox score result"):
            summarize_file(path)
    with pytest.raises(errors.InvalidInput, match="pass@5"):
        pass_at_k(3, 1, 5)


def test_read_problems_refuses_a_missing_file(tmp_path):
    from judgebox.tools.score import read_problems

    with pytest.raises(errors.UnreadableFile):
        list(read_problems(tmp_path / "missing.jsonl"))


@pytest.mark.parametrize(("made", "message"), [
    (lambda: judgebox.Case("1 2\n", "3\n"), "kind"),  # the fields in the constructor's order, not the record's
    (lambda: judgebox.Case("stdio", stdin="1 2\n"), "stdin is bytes"),
    (lambda: judgebox.Case("stdio", io="pipe"), "io"),
    (lambda: judgebox.Case("stdio", limits={"cpu_time": 1}), "judgebox.Limits"),
])
def test_a_case_record_made_directly_is_checked_before_it_reaches_the_sandbox(made, message):
    with pytest.raises(errors.InvalidInput, match=message):
        made()
