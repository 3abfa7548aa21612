"""judgebox.trl driven by TRL itself: a real GRPOTrainer (a 2-layer GPT-2 built from a config, a byte-level
BPE tokenizer trained here: no hub), whose own ``_calculate_rewards`` calls judgebox's reward functions as
it does in training, on MBPP problems with right and wrong programs; and one real training step."""

from __future__ import annotations

import json
import logging
import math
import pickle

import pytest

import judgebox
from judgebox import rewards
from judgebox.trl import async_reward_function, reward_function
from support.data import load_dataset
from support.tiny_tokenizer import byte_level

try:  # test extras: a missing one is a setup to fix, not a test to skip
    import torch
    import trl
except ImportError as exc:
    pytest.fail(f"{exc}: TRL and torch are test extras; run scripts/setup.sh --test", pytrace=False)


def _mbpp(problem_id: str) -> dict:
    return next(r for r in load_dataset("mbpp.jsonl") if r["id"] == problem_id)


def _fenced(code: str) -> str:
    return f"Here is my answer.\n```python\n{code}\n```\n"


@pytest.fixture(scope="module")
def tiny():
    """A tiny GPT-2 and its tokenizer, made here (the network is closed: nothing comes from a hub)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = byte_level(["<eos>", "<pad>"], eos_token="<eos>", pad_token="<pad>")

    def model():
        torch.manual_seed(0)
        return GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, n_embd=32, n_layer=2, n_head=2,
                                          bos_token_id=1, eos_token_id=1, pad_token_id=2))
    return model, tokenizer


def _trainer(tiny, reward_funcs, tmp_path, rows):
    from datasets import Dataset

    model, tokenizer = tiny
    args = trl.GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                          max_completion_length=12, report_to=[], use_cpu=True, logging_steps=1, save_strategy="no")
    return trl.GRPOTrainer(model=model(), reward_funcs=reward_funcs, args=args, processing_class=tokenizer,
                           train_dataset=Dataset.from_list(rows))


def _row(problem: dict) -> dict:
    """A dataset row as a user would store it: the prompt and verl's test cases as JSON text."""
    return {"prompt": problem["prompt"], "test_cases": json.dumps(problem["test_cases"])}


def _calculate(trainer, rows, completions):
    """TRL's own reward step on these completions (what it runs after generating them)."""
    inputs = [{**row, "completion": c} for row, c in zip(rows, completions)]
    ids = [[1, 2, 3]] * len(completions)
    return trainer._calculate_rewards(inputs, [r["prompt"] for r in rows], completions, ids)[:, 0].tolist()


MBPP_RIGHT_WRONG = ("mbpp/3", "def is_not_prime(n):\n    return False\n")  # passes 1 of its 3 asserts


def _mixed_batch():
    problem = _mbpp(MBPP_RIGHT_WRONG[0])
    right = problem["solutions"][0]
    rows = [_row(problem)] * 4
    completions = [_fenced(right),                                   # right, plain text
                   _fenced(MBPP_RIGHT_WRONG[1]),                     # wrong on 2 of 3 cases
                   [{"role": "assistant", "content": _fenced(right)}],  # right, conversational
                   "I do not know."]                                 # prose, no fence: no code (CE, 0.0)
    return rows, completions


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
@pytest.mark.parametrize("make", [reward_function, async_reward_function], ids=["sync", "async"])
def test_trl_scores_right_and_wrong_programs(tiny, tmp_path, make):
    function = make()
    trainer = _trainer(tiny, function, tmp_path, [_row(_mbpp("mbpp/3"))] * 2)
    assert trainer.reward_func_names == ["judgebox"]
    assert trl.trainer.utils.is_async_callable(function) == (make is async_reward_function)
    rows, completions = _mixed_batch()
    before = rewards.stats()
    assert _calculate(trainer, rows, completions) == pytest.approx([1.0, 1 / 3, 1.0, 0.0])
    assert rewards.stats()["samples"] - before["samples"] == 4  # one batch of the step's completions
    assert rewards.stats()["batches"] - before["batches"] == 1
    assert trainer._pending_metrics["judgebox/no_reward"] == [0.0]
    assert trainer._pending_extra_logs["judgebox_verdict"] == ["AC", "WA", "AC", "CE"]


def test_no_code_block_is_zero_not_none(tiny, tmp_path):
    """A completion with fences of another language only has no program: the policy's own 0."""
    trainer = _trainer(tiny, reward_function(), tmp_path, [_row(_mbpp("mbpp/3"))] * 2)
    rows = [_row(_mbpp("mbpp/3"))] * 2
    assert _calculate(trainer, rows, ["```cpp\nint main(){}\n```", "<think>still thinking"]) == [0.0, 0.0]
    assert trainer._pending_metrics["judgebox/no_code"] == [2.0]


@pytest.mark.parametrize("make", [reward_function, async_reward_function], ids=["sync", "async"])
def test_judge_failure_reaches_trl_as_none(tiny, tmp_path, make, caplog):
    """A judge that cannot run anything (its worker pool is gone): every sample with a program is SE, TRL
    gets None for each (NaN in its reward matrix, its own warning), judgebox counts them; never a 0. The
    prose answer has no program, so it needs no judge: its 0.0 stands."""
    broken = judgebox.Judge(slots=1)
    broken.close()
    trainer = _trainer(tiny, make(judge=broken), tmp_path, [_row(_mbpp("mbpp/3"))] * 2)
    rows, completions = _mixed_batch()
    before = rewards.stats()["system_errors"]
    with caplog.at_level(logging.WARNING):
        got = _calculate(trainer, rows, completions)
    assert all(math.isnan(value) for value in got[:3]) and got[3] == 0.0
    assert "All reward functions returned None" in caplog.text  # TRL's own word for it
    assert "3 without reward" in caplog.text and "1 without code" in caplog.text  # judgebox.rewards' log line
    assert rewards.stats()["system_errors"] - before == 3
    assert trainer._pending_metrics["judgebox/no_reward"] == [3.0]


def test_unusable_test_data_is_none_beside_scored_samples(tiny, tmp_path):
    """One row's test cases cannot be judged (more outputs than inputs): that sample alone is None."""
    problem = _mbpp("mbpp/3")
    broken = {"prompt": problem["prompt"], "test_cases": json.dumps({"inputs": ["1"], "outputs": ["1", "2"]})}
    trainer = _trainer(tiny, reward_function(), tmp_path, [_row(problem)] * 2)
    got = _calculate(trainer, [_row(problem), broken], [_fenced(problem["solutions"][0])] * 2)
    assert got[0] == 1.0 and math.isnan(got[1])
    assert trainer._pending_metrics["judgebox/no_reward"] == [1.0]


def test_one_grpo_training_step(tiny, tmp_path):
    """GRPOTrainer.train(): the model's own completions are judged (in the sandbox) and logged."""
    trainer = _trainer(tiny, reward_function(name="mbpp_tests"), tmp_path, [_row(_mbpp("mbpp/3"))] * 4)
    before = rewards.stats()["samples"]
    trainer.train()
    logged = trainer.state.log_history[0]
    assert rewards.stats()["samples"] - before == 2  # one step: 1 prompt x 2 generations
    assert logged["rewards/mbpp_tests/mean"] == 0.0  # an untrained model's text is no working program
    assert logged["judgebox/no_reward"] == 0.0


def test_functions_pickle_with_their_settings():
    """TRL's picklable reward forms: a copy made elsewhere keeps its name, settings and async-ness."""
    for make in (reward_function, async_reward_function):
        copy = pickle.loads(pickle.dumps(make("tests", preset="prime", binary=True, name="code")))
        assert (copy.__name__, copy.test_cases_column, copy.preset, copy.binary) == ("code", "tests", "prime", True)
        assert trl.trainer.utils.is_async_callable(copy) == (make is async_reward_function)


# open-r1's verifiable-coding-problems rows: the cases are the verification_info column
VERIFICATION_INFO = {"language": "python", "test_cases": [
    {"fn_name": None, "input": "1 2\n", "output": "3\n", "type": "stdin_stdout"},
    {"fn_name": None, "input": "5 7\n", "output": "12\n", "type": "stdin_stdout"}]}


def test_open_r1_verification_info_column_is_judged(tiny, tmp_path):
    rows = [{"prompt": "add two numbers", "verification_info": VERIFICATION_INFO}] * 2
    trainer = _trainer(tiny, reward_function("verification_info"), tmp_path, rows)
    right = _fenced("a, b = map(int, input().split())\nprint(a + b)")
    wrong = _fenced("a, b = map(int, input().split())\nprint(a * b)")  # right on neither case
    assert _calculate(trainer, rows, [right, wrong]) == [1.0, 0.0]


def test_a_column_that_holds_no_test_data_is_an_error_at_the_first_batch(tiny, tmp_path):
    """A mis-mapped column (here open-r1's problem text) would give a run with no reward signal: it raises."""
    rows = [{"prompt": "add", "problem": "Add two numbers.", "verification_info": VERIFICATION_INFO}] * 2
    trainer = _trainer(tiny, reward_function("problem"), tmp_path, rows)
    with pytest.raises(judgebox.InvalidInput, match="column 'problem' holds no test data judgebox can read"):
        _calculate(trainer, rows, [_fenced("print(3)")] * 2)
