"""The program's failures as the tests' process sees them: a broken protocol is a ``ProgramError``, and
an exception the program raised keeps its builtin kind unless T's own machinery would take it for
control flow.

Whatever the program's process (S) sends is an attacker's message. A malformed one must be an
ordinary failure of the tests, never a pass and never a judge crash; and a StopIteration from S
ending ``all(map(f, xs))`` early would pass the assert, so such exceptions lose their meaning here.
"""

from __future__ import annotations

import builtins

MAX_ERROR_TEXT = 2000

# Exceptions that T's loops, generators and interpreter take for control flow, not for failure: from S
# they would end ``all(map(f, xs))`` early (a pass) or stop the tests as if they had exited.
CONTROL_FLOW = frozenset({"StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt",
                          "SystemExit"})
BUILTIN_EXCEPTIONS = {name: kind for name, kind in vars(builtins).items()
                      if isinstance(kind, type) and issubclass(kind, Exception) and name not in CONTROL_FLOW}


class ProgramError(Exception):
    """The program's process broke the protocol (a malformed or oversized message, a value of a type the
    tests do not accept), or raised an exception that must not keep its meaning in the tests' process
    (``StopIteration``, ``SystemExit``...). An ordinary failure of the tests, like any exception."""



def malformed(what: str) -> ProgramError:
    return ProgramError(f"the program's process sent a malformed message: {what}")
