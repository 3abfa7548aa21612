"""GRPO with TRL, rewarded by judgebox: each completion's program is judged in the sandbox on its problem's
test cases (the dataset's "test_cases" column, verl's form).

    .venv/bin/python examples/trl_grpo.py                        # a tiny model made here: runs on a CPU in seconds
    .venv/bin/python examples/trl_grpo.py --model /path/to/model # a real causal LM (a local folder or hub name)
    .venv/bin/python examples/trl_grpo.py --async-reward         # the reward function as a coroutine

The data is judgebox's bundled sample (HumanEval, MBPP and CodeContests problems). A completion whose
judging failed (SE) gets None: TRL leaves it out of its group's baseline and gives it no advantage, and
the step's count shows as ``judgebox/no_reward`` beside TRL's own metrics.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

import judgebox.trl

PROMPT = ("Solve the problem below in Python. Answer with one ```python code block.\n\n{problem}")


def dataset(limit: int) -> Dataset:
    """The bundled sample as TRL rows: a prompt and the problem's test cases (JSON text, as a parquet holds it)."""
    lines = resources.files("judgebox").joinpath("samples/demo.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()][:limit]
    return Dataset.from_list([{"prompt": PROMPT.format(problem=r["prompt"]), "test_cases": json.dumps(r["test_cases"])}
                              for r in records])


def tiny_model_and_tokenizer(texts: list[str]):
    """A 2-layer GPT-2 and a byte-level BPE tokenizer trained on the prompts: nothing to download."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=500, special_tokens=["<unk>", "<eos>", "<pad>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<eos>", pad_token="<pad>", unk_token="<unk>")
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=1024, n_embd=64, n_layer=2, n_head=2,
                                       bos_token_id=1, eos_token_id=1, pad_token_id=2))
    return model, tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="a causal LM to train (default: a tiny one made here)")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--async-reward", action="store_true", help="use judgebox.trl.async_reward_function")
    parser.add_argument("--preset", default="judgebox", help="judgebox's presets: judgebox, verl, prime, ...")
    parser.add_argument("--binary", action="store_true", help="reward 1 only when every test passes")
    args = parser.parse_args()

    train = dataset(args.problems)
    if args.model:
        model, tokenizer = args.model, None  # TRL loads the model and its tokenizer
    else:
        model, tokenizer = tiny_model_and_tokenizer(list(train["prompt"]))
    make = judgebox.trl.async_reward_function if args.async_reward else judgebox.trl.reward_function
    reward = make("test_cases", preset=args.preset, binary=args.binary)

    config = GRPOConfig(output_dir="grpo-judgebox", max_steps=args.steps, per_device_train_batch_size=4,
                        num_generations=4, max_completion_length=64, logging_steps=1, report_to=[],
                        save_strategy="no", use_cpu=not args.model)
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=config, train_dataset=train,
                          processing_class=tokenizer)
    trainer.train()
    for entry in trainer.state.log_history:
        if "reward" in entry:
            print(f"step {entry['step']}: reward {entry['reward']:.3f}, "
                  f"no reward (judge failed) {entry.get('judgebox/no_reward', 0):.0f}, "
                  f"no code {entry.get('judgebox/no_code', 0):.0f}")
    print("judgebox.rewards.stats():", judgebox.rewards.stats())


if __name__ == "__main__":
    main()
