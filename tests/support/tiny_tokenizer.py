"""A real tokenizer made in the test run, for the trainer tests (the network is closed: nothing from a hub):
byte-level BPE (lossless, as the chat models' tokenizers are) trained on MBPP's prompts and solutions."""

from __future__ import annotations

from support.data import load_dataset


def byte_level(special_tokens: list[str], **names: str):
    """A ``PreTrainedTokenizerFast``; ``special_tokens`` come first in the vocabulary, ``names`` say which
    is which (``eos_token="<eos>"``...)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    corpus = [r["prompt"] + "\n" + r["solutions"][0] for r in load_dataset("mbpp.jsonl")[:50]]
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", *special_tokens],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=bpe, unk_token="<unk>", **names)
