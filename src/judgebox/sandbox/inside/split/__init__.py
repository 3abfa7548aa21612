"""Assert and call cases with the tests and the program in two processes (the tamper-proof harness).

The run forks before the program starts. The program's process (S) never holds the test code, the
pass token or the result channel; the tests' process (T) never runs program code. Every name the tests
use that the program defined is a proxy (a ``Remote``); calling it sends the arguments to S and brings
the result back. T is not dumpable, so S cannot read it. S is the program's: it may have replaced every
line of this package on its side, so whatever S sends is an attacker's message, and T treats it so.

One idea a module:

- ``errors``: what the program's failures are to the tests: a malformed or oversized message is a
  ``ProgramError`` (an ordinary Exception) in the tests, never a pass and never a judge crash.
  Exceptions from S arrive as the builtin exception they are (``ValueError`` stays ``ValueError``), but
  never as one that T's own machinery takes for control flow: a StopIteration ending
  ``all(map(f, xs))`` early would pass the assert. Those become a ProgramError.
- ``codec`` (``Codec``): values as JSON. From S to T only a *closed set of data types* exists (None,
  bool, int, float, str, bytes, bytearray, complex, tuple, list, set, frozenset, dict, range, dict
  views, Fraction, Decimal, deque, date/datetime/time/timedelta; numpy values arrive as the plain data
  they hold), rebuilt by T's own code from validated shapes.
- ``directions`` (``TestsCodec``, ``ProgramCodec``): the two directions are not alike. Anything of S's
  that is not data is a ``Remote`` handle; nothing S sends is ever resolved by name, imported or run in
  T. From T to S the tests are trusted, so S may resolve names T sends (``int``, ``math.sqrt``), but *no
  object of T is ever reachable from S*: a callable of the tests crosses as a call-only callback, an
  iterator as the items it yields, and anything else that is not data makes the call fail in T with a
  TypeError.
- ``channel`` (``Channel``): length-prefixed JSON over a unix socketpair; either side may call back
  into the other while it waits (the tests may pass a lambda to the program). S answers every request
  of T on its objects; T answers only calls of its callbacks.
- ``proxies``: ``Remote`` (in T, an object of S: its operators work only between two Remotes, so an
  ``__eq__`` that always answers True meets no test data; what it answers to ``bool``, ``len``,
  ``repr``, iteration is checked to be of the right type) and ``Callback`` (in S, a callable of T).
- ``sides``: the fork that makes S, S's serving loop, and the namespace the tests run in.

Every module is imported here, at once: the zygote loads the inside package at boot, before it
confines itself, and nothing of it is imported later, in a run.
"""

from .channel import Channel
from .codec import MAX_DEPTH, MAX_HEX_DIGITS
from .directions import TestsCodec
from .errors import ProgramError
from .proxies import Remote
from .sides import fork_program, names_used, program_side, tests_namespace

__all__ = ["MAX_DEPTH", "MAX_HEX_DIGITS", "Channel", "ProgramError", "Remote", "TestsCodec", "fork_program",
           "names_used", "program_side", "tests_namespace"]
