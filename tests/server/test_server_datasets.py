"""SandboxFusion's dataset API on ``judgebox serve``: /list_datasets, /list_ids, /get_prompts, /get_prompt_by_id,
/submit and /get_metrics, with real requests against the session's real server. Known-right and known-wrong
completions of the shipped HumanEval, MBPP and CodeContests rows (the references come from the package's
data), rows given inline (``provided_data``) for CommonOJ and AutoEval, the refusals (an unknown dataset,
``custom_extract_logic``, unknown keys), and the official ``sandbox-fusion`` client's get_prompts and submit.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest
import sandbox_fusion
from sandbox_fusion import GetPromptsRequest, SubmitRequest, TestConfig, get_prompts, set_endpoint, submit

from judgebox import datasets


def post(server: Any, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=120)


def submitted(server: Any, dataset: str, ident: int | str, completion: str, **config: Any) -> dict[str, Any]:
    response = post(server, "/submit", {"dataset": dataset, "id": ident, "completion": completion, "config": config})
    assert response.status_code == 200, response.text
    return response.json()


def fenced(code: str, language: str = "python") -> str:
    return f"Here is my answer:\n```{language}\n{code}\n```\n"


def first_row(name: str, wanted: Any = lambda row: True) -> tuple[int, dict[str, Any]]:
    return next((i, row) for i, row in enumerate(datasets.get(name).rows()) if wanted(row))


# --- listing and prompts -----------------------------------------------------------------------------------------


def test_list_datasets_names_sandboxfusions_ids_of_the_shipped_datasets(server):
    listed = httpx.get(server.url + "/list_datasets").json()
    assert listed == datasets.sandboxfusion_ids()
    assert {"humaneval_python", "mbpp", "code_contests", "humaneval_x_cpp"} <= set(listed)


def test_list_ids_and_prompts_page_with_offset_and_limit(server):
    page = {"dataset": "mbpp", "config": {}, "offset": 2, "limit": 3}
    assert post(server, "/list_ids", page).json() == [3, 4, 5]  # MBPP's task ids, as SandboxFusion numbers them
    prompts = post(server, "/get_prompts", page).json()
    assert [p["id"] for p in prompts] == [3, 4, 5]
    row = datasets.get("mbpp").rows()[2]
    assert prompts[0]["prompt"] == ("You are an expert Python programmer, and here is your task: " + row["prompt"]
                                    + " Your code should pass these tests:\n\n" + "\n".join(row["meta"]["test_list"]))


def test_prompt_by_id_of_each_kind(server):
    mbpp = post(server, "/get_prompt_by_id", {"dataset": "mbpp", "id": "1", "config": {"is_fewshot": True}}).json()
    assert mbpp["id"] == 1 and mbpp["prompt"].count("[BEGIN]") == 4 and mbpp["prompt"].endswith("[BEGIN]\n")
    by_name = post(server, "/get_prompt_by_id", {"dataset": "humaneval_python", "id": "HumanEval/3", "config": {}})
    by_number = post(server, "/get_prompt_by_id", {"dataset": "humaneval_python", "id": 3, "config": {}})
    assert by_name.json() == by_number.json() and by_name.json()["id"] == "HumanEval/3"
    assert by_name.json()["prompt"] == datasets.get("humaneval").rows()[3]["prompt"]
    freeform = post(server, "/get_prompt_by_id", {"dataset": "humaneval_x_cpp", "id": "CPP/0",
                                                  "config": {"extra": {"is_freeform": True}}}).json()
    assert freeform["prompt"].startswith("```cpp\n") and "wrap it in markdown" in freeform["prompt"]
    contest = post(server, "/get_prompt_by_id", {"dataset": "code_contests", "id": 4,
                                                 "config": {"language": "cpp", "locale": "en"}}).json()
    assert contest["labels"]["id"] == datasets.get("codecontests").rows()[4]["id"]
    assert contest["prompt"].endswith("including a main function in C++. Your program should read input from "
                                      "standard input and write output to standard output.")
    missing = post(server, "/get_prompt_by_id", {"dataset": "mbpp", "id": 100000, "config": {}})
    assert missing.status_code == 404 and "no row with id 100000" in missing.json()["detail"]


# --- /submit on the shipped rows ---------------------------------------------------------------------------------


def test_humaneval_right_and_wrong_completions(server):
    index, row = first_row("humaneval", lambda r: r["wrong_solutions"])
    ident = row["id"]
    right = submitted(server, "humaneval_python", ident, fenced(row["solutions"][0]), extra={"is_freeform": True})
    assert right["accepted"] and right["extracted_type"] == "fenced" and right["tests"][0]["passed"]
    assert right["tests"][0]["exec_info"]["status"] == "Success"
    # a base model's body continues the prompt, up to the first unindented line (HumanEval's stop sequences)
    body = row["solutions"][0].removeprefix(row["prompt"])
    assert body != row["solutions"][0]
    continued = submitted(server, "humaneval_python", index, body + "\n\ndef unrelated")
    assert continued["accepted"] and continued["full_code"].startswith(row["prompt"])
    wrong = submitted(server, "humaneval_python", ident, fenced(row["wrong_solutions"][0]),
                      extra={"is_freeform": True})
    assert not wrong["accepted"] and not wrong["tests"][0]["passed"]
    assert wrong["tests"][0]["exec_info"]["status"] == "Failed"  # a failed assert: the run's exit was not 0


def test_mbpp_right_and_wrong_completions(server):
    row = datasets.get("mbpp").rows()[0]
    right = submitted(server, "mbpp", 1, fenced(row["solutions"][0]) + "[DONE] trailing text")
    assert right["accepted"] and len(right["tests"]) == len(row["meta"]["test_list"])
    assert right["test_code"] == "\n".join(row["test_cases"]["assert_case"])
    wrong = submitted(server, "mbpp", 1, fenced("def min_cost(cost, m, n):\n    return 0"))
    assert not wrong["accepted"] and [t["passed"] for t in wrong["tests"]] == [False] * len(row["meta"]["test_list"])


def test_codecontests_right_and_wrong_completions(server):
    index, row = first_row("codecontests", lambda r: r["meta"]["reference_ok_strict"])
    right = submitted(server, "code_contests", index, fenced(row["solutions"][0]), language="python")
    assert right["accepted"] and len(right["tests"]) == len(row["test_cases"]["inputs"])
    shown, given = right["tests"][0]["test_info"]["input"]["stdin"], row["test_cases"]["inputs"][0]
    assert shown == given if len(given) <= 1000 else (shown.startswith(given[:500]) and len(shown) == 1003)
    # the first failing case ends the judging, unless run_all_cases
    wrong = submitted(server, "code_contests", index, fenced("print(-1)"), language="python")
    assert not wrong["accepted"] and len(wrong["tests"]) < len(row["test_cases"]["inputs"])
    assert wrong["tests"][-1]["exec_info"]["status"] == "Success"  # it ran; its output was wrong
    assert wrong["tests"][-1]["exec_info"]["run_result"]["verdict"] == "WA"
    every = submitted(server, "code_contests", index, fenced("print(-1)"), language="python",
                      extra={"run_all_cases": True})
    assert len(every["tests"]) == len(row["test_cases"]["inputs"])


def test_a_completion_without_code_is_rejected_unjudged(server):
    empty = submitted(server, "code_contests", 3, "```cpp\nint main() {}\n```", language="python")
    assert (empty["accepted"], empty["extracted_type"], empty["tests"]) == (False, "empty", [])


# --- rows given inline ------------------------------------------------------------------------------------------

A_PLUS_B = {"id": 7, "content": "Print a + b.", "labels": {},
            "test": [{"input": {"stdin": "1 2\n"}, "output": {"stdout": "3\n"}},
                     {"input": {"stdin": "5 5\n"}, "output": {"stdout": "10\n"}}]}


def test_common_oj_provided_data(server):
    config = {"dataset_type": "CommonOJDataset", "language": "python", "provided_data": A_PLUS_B}
    right = submitted(server, "my_rows", 7, fenced("a, b = map(int, input().split())\nprint(a + b)"), **config)
    assert right["accepted"] and [t["test_info"]["output"]["stdout"] for t in right["tests"]] == ["3\n", "10\n"]
    wrong = submitted(server, "my_rows", 7, fenced("print(3)"), **config | {"extra": {"run_all_cases": True}})
    assert [t["passed"] for t in wrong["tests"]] == [True, False]
    listed = post(server, "/get_prompts", {"dataset": "my_rows", "config": config | {"provided_data": [A_PLUS_B]}})
    assert listed.json()[0]["prompt"].startswith("Print a + b.\n\nPlease implement a complete Python script.")
    no_language = post(server, "/submit", {"dataset": "my_rows", "id": 7, "completion": "print(3)",
                                           "config": config | {"language": None}})
    assert no_language.status_code == 400
    assert no_language.json()["detail"] == "config.language field must exist for CommonOJDataset, got None"


def test_autoeval_provided_data_with_an_asset_and_append_flag(server):
    row = {"id": 0, "content": "Read data.txt and return its number doubled.",
           "labels": {"programming_language": "python", "execution_language": "python"},
           "test": {"code": "#<INSERT>\n\nassert solve() == 42\n",
                    "asset": {"data.txt": base64.b64encode(b"21\n").decode()}}}
    config = {"dataset_type": "AutoEvalDataset", "provided_data": row}
    solve = "def solve():\n    return 2 * int(open('data.txt').read())"
    right = submitted(server, "", 0, fenced(solve), **config)
    assert right["accepted"] and right["full_code"].startswith(solve)
    # exit(0) before the test runs: a clean exit, but the flag printed after the test never is
    quitter = fenced("import sys\nsys.exit(0)\n" + solve)
    assert submitted(server, "", 0, quitter, **config)["accepted"]
    assert not submitted(server, "", 0, quitter, **config | {"extra": {"append_flag": True}})["accepted"]
    jest = post(server, "/submit", {"dataset": "", "id": 0, "completion": "x", "config": config | {
        "provided_data": row | {"labels": {"programming_language": "javascript", "execution_language": "jest"}}}})
    assert jest.status_code == 400 and "'jest' is not a language judgebox runs" in jest.json()["detail"]


def test_humaneval_provided_in_its_own_form(server):
    row = {"task_id": "Mine/0", "prompt": "def inc(x):\n", "entry_point": "inc",
           "test": "def check(candidate):\n    assert candidate(1) == 2\n"}
    config = {"dataset_type": "HumanEvalDataset", "provided_data": row}
    assert submitted(server, "mine", 0, "    return x + 1\n", **config)["accepted"]
    assert not submitted(server, "mine", 0, "    return x\n", **config)["accepted"]


# --- refusals ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "status", "detail"), [
    ({"dataset": "nope", "config": {}}, 400, "no eval class found for dataset nope"),
    ({"dataset": "nope", "config": {"dataset_type": "NoSuchDataset"}}, 400, "eval class NoSuchDataset not found"),
    ({"dataset": "mbpp", "config": {"custom_extract_logic": "submit_code_blocks([])"}}, 400, "custom_extract_logic"),
    ({"dataset": "nope", "config": {"dataset_type": "CommonOJDataset"}}, 400, "give them in config.provided_data"),
    ({"dataset": "mbpp", "config": {"is_freefrom": True}}, 422, "is_freefrom"),
    ({"dataset": "mbpp", "config": {}, "limits": 3}, 422, "limits"),
    ({"dataset": "x", "config": {"dataset_type": "MBPPDataset", "provided_data": [{"id": 1, "content": "c"}]}},
     422, "test_list"),
])
def test_refusals(server, body, status, detail):
    response = post(server, "/get_prompts", body)
    assert response.status_code == status, response.text
    assert detail in response.text


def test_submit_refuses_custom_extract_logic_and_unknown_keys(server):
    base = {"dataset": "mbpp", "id": 1, "completion": "x", "config": {}}
    logic = post(server, "/submit", base | {"config": {"custom_extract_logic": "import os"}})
    assert logic.status_code == 400 and "outside the sandbox" in logic.json()["detail"]
    assert post(server, "/submit", base | {"timeout": 5}).status_code == 422
    too_long = post(server, "/submit", base | {"completion": "x" * 5_000_000})  # past /judge's 4 MiB of code
    assert too_long.status_code == 422 and "no valid run" in too_long.json()["detail"]


# --- metrics ------------------------------------------------------------------------------------------------


def test_get_metrics_is_pass_at_k_over_the_results(server):
    result = submitted(server, "mbpp", 2, fenced("def similar_elements(a, b):\n    return 0"))
    results = [result | {"id": 1, "accepted": accepted} for accepted in (True, False, False, False, False)]
    results += [result | {"id": 2, "accepted": False} for _ in range(5)]
    metrics = post(server, "/get_metrics", {"dataset": "mbpp", "config": {}, "results": results}).json()
    assert metrics == {"pass@1": pytest.approx(0.1), "pass@5": pytest.approx(0.5), "problems": 2,
                       "accepted": pytest.approx(0.1)}
    assert post(server, "/get_metrics", {"dataset": "mbpp", "config": {}, "results": []}).json() == {}


# --- the official client, unchanged ---------------------------------------------------------------------------


def test_the_sandbox_fusion_client_gets_prompts_and_submits(server):
    before = (sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT)
    set_endpoint(server.url)
    try:
        prompts = get_prompts(GetPromptsRequest(dataset="mbpp", config=TestConfig(), offset=0, limit=2))
        assert [p.id for p in prompts] == [1, 2]
        row = datasets.get("mbpp").rows()[0]
        right = submit(SubmitRequest(dataset="mbpp", id=1, completion=fenced(row["solutions"][0]),
                                     config=TestConfig(language="python")), max_attempts=1)
        assert right.accepted and right.tests[0].exec_info.run_result.return_code == 0
        wrong = submit(SubmitRequest(dataset="mbpp", id=1, completion=fenced("def min_cost(*a):\n    return 0"),
                                     config=TestConfig(language="python")), max_attempts=1)
        assert not wrong.accepted
    finally:
        sandbox_fusion.config.SANDBOX_ENDPOINT, sandbox_fusion.config.DATASET_ENDPOINT = before
