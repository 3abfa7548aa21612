"""Shared fixtures: one real sandboxed Judge for the whole session (starting slots costs ~100 ms each), and one
shared ``judgebox serve``. Both start only when a test asks for them, so tests/unit starts neither."""

from __future__ import annotations

import signal

import pytest

import judgebox
from support.server import Server

# A run started in the background by a non-interactive shell (`pytest ... &`, nohup) inherits SIGINT ignored,
# and so would every judgebox process the tests start and then interrupt as a terminal's Ctrl-C does: the
# Ctrl-C tests would fail for the shell's sake. Python's own handler is reset to the default in each child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def judge():
    with judgebox.Judge() as j:
        yield j


@pytest.fixture(scope="session")
def server():
    """One shared server with two slots; tests that kill or overload it start their own ``Server``."""
    with Server("--workers", "2") as running:
        yield running
