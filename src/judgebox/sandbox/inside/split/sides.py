"""The two sides' entry points: the fork that makes the program's process (S), S's serving loop, and the
namespace the tests run in, in the tests' process (T).

The program's module objects never reach the tests: a name the program bound to a module gives the
tests T's own copy of a standard one, and a name the program binds over a builtin, a standard module
or a conventional alias is dropped whenever the function under test is not such a name.
"""

from __future__ import annotations

import builtins
import importlib
import os
import re
import socket
import sys
from typing import Any

from .channel import Channel
from .errors import malformed
from .proxies import Remote

# Standard modules T gives the tests for a name the program bound to a module (see tests_namespace):
# these would do something on import, and no test needs them.
UNWANTED_MODULES = frozenset({"__main__", "antigravity", "this", "__hello__", "__phello__", "idlelib",
                              "turtle", "turtledemo", "tkinter", "webbrowser", "pydoc", "ensurepip", "venv"})
# Names tests use for a module the program imported (``import numpy as np``): bound to anything but a
# module, they are the program's stand-in for the module, as ``class math`` would be.
# The modules conventional aliases stand for: under such a name (or a standard module's own name) the tests
# get that module or nothing, so ``import numpy as math`` cannot hand the tests numpy's looser ``isclose``.
MODULE_ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sp": "scipy", "nx": "networkx",
                  "tf": "tensorflow", "torch": "torch"}
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def program_side(sock: socket.socket, namespace: dict[str, Any]) -> None:
    """S: answer the tests' requests until they are done (EOF)."""
    channel = Channel(sock, namespace)
    try:
        while True:
            channel.answer(channel.receive())
    except (EOFError, OSError):
        return


def tests_namespace(channel: Channel, used: set[str] | None = None) -> dict[str, Any]:
    """T: the namespace the tests run in: the program's names, as data or as proxies.

    A name the program bound to a module (``import math``, ``import numpy as np``) gives the tests T's
    own copy of that module when it is a standard one (or numpy), found on T's own ``sys.path``, which
    holds only read-only system folders: the program's module object, which it may have patched, never
    reaches the tests, and what S says is only which of T's own modules to offer. Any other module name
    is left out.

    A name the program binds over a builtin, a standard module or a conventional module alias (``def set``,
    ``class math``, ``class np``) would let it answer for the expected side of a test too
    (``set(f(x)) == set([...])``, ``np.allclose(f(x), [...])``). Such names are
    dropped, so the tests get the real ones, whenever the tests call a function of the program that is
    not such a name: then that function is the one under test. (A task whose function is named like a
    builtin, ``def sum(a, b)``, keeps it.)
    """
    reply = channel.ask("globals", raw=True)
    if type(reply) is not dict or reply.keys() != {"globals"} or type(reply["globals"]) is not list:
        raise malformed("the program's names are not a list")
    names: dict[str, Any] = {}
    for pair in reply["globals"]:
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
            raise malformed("a name of the program that is not [name, value]")
        name, value = pair
        if name.startswith("__"):
            continue
        if type(value) is dict and value.keys() == {"m"}:
            stands_for = MODULE_ALIASES.get(name, name if name in sys.stdlib_module_names else None)
            module = _own_module(stands_for or value["m"])  # ``math`` is math, whatever the program bound
            if module is not None:
                names[name] = module
            continue
        names[name] = channel.decode(value)
    if used is not None:
        own = {name for name, value in names.items() if isinstance(value, Remote)}
        shadowing = {name for name in own if name in builtins.__dict__ or name in sys.stdlib_module_names
                     or name in MODULE_ALIASES}
        if (own - shadowing) & used:
            names = {name: value for name, value in names.items() if name not in shadowing}
    return {**names, "__builtins__": builtins, "__name__": "__main__"}


def _own_module(name: Any) -> Any:
    """T's own copy of the standard module (or numpy) ``name``, else None."""
    if type(name) is not str or len(name) > 200 or not _MODULE_NAME.fullmatch(name):
        return None
    top = name.partition(".")[0]
    if top in UNWANTED_MODULES or not (top in sys.stdlib_module_names or top == "numpy"):
        return None
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def names_used(code: Any) -> set[str]:
    """Every global or attribute name a code object (and the functions in it) refers to."""
    used, pending = set(), [code]
    while pending:
        current = pending.pop()
        used.update(current.co_names)
        pending.extend(c for c in current.co_consts if isinstance(c, type(code)))
    return used


def fork_program(sock_pair: tuple[socket.socket, socket.socket], close_fds: tuple[int, ...]) -> int:
    pid = os.fork()
    if pid == 0:
        sock_pair[0].close()
        for fd in set(close_fds) - {sock_pair[1].fileno()}:  # a free fixed number may be our own end now
            try:
                os.close(fd)
            except OSError:  # not open in this run (a call case has no tests fd)
                pass
    else:
        sock_pair[1].close()
    return pid
