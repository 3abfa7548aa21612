"""OpenRLHF's rollout executor and a tokenizer, as fixtures for the tests in this folder (tests/support/openrlhf.py)."""

from support.openrlhf import agent, tokenizer

__all__ = ["agent", "tokenizer"]
