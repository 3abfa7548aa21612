"""Java assert cases (the HumanEval-X form) with the program and the tests in two JVMs.

Run in one JVM, a program can read the pass token at /proc/self/fd/4 and write the pass itself, call
``System.exit(0)`` before the tests end, or tamper with what the tests use (a static initialiser, an
``equals`` that always agrees, a ``List`` subclass). Here:

- **the program's side** (S) is the program's classes plus ``harnesses/java/judgebox/JudgeboxServer.java``,
  compiled once per program into one jar (cached by content). In the same sandboxed build the server
  describes the program's classes (``--describe``: their constructors and methods with generic types);
  the program may print anything there instead, so every line is checked here and only names and types
  of a strict grammar become stubs (see ``stubs``). At run time S answers the tests' requests over the
  channel (fd 7) by reflection: construct, call, and equals/hashCode/toString of its own objects.
- **the tests' side** (T) is the tests compiled against generated stubs (``JudgeboxStubs``: the program's
  class names and signatures, each member forwarding over the channel) plus ``JudgeboxRt.java`` (the
  entry point and the channel) and ``JudgeboxWire.java`` (the codec, shared by both sides), built per
  distinct (stubs, tests) and passed as the tests' fd 6. No program class is in T's jar.
- values cross as data of a closed set (null, boxed primitives, String, BigInteger, BigDecimal, arrays,
  lists, sets, maps, Optional), rebuilt by the receiving side's own code into JDK classes chosen by the
  declared type; any other object stays in S behind a handle (a stub in T whose ``equals`` is the
  program's only against another of the program's objects). An exception of the program reaches the
  tests as an ordinary RuntimeException with its name and message.
- the stubs are nested in ``judgebox.JudgeboxStubs`` and imported on demand, so a program class named like
  a JDK class the tests use (``Arrays``, ``String``, ``AssertionError``) makes that name ambiguous (a
  compile error), never the tests' ``Arrays``.
- T runs with ``-ea`` and writes the pass ("asserts" and the token) only after the tests' ``main``
  returned; anything thrown is "assertion-failed" and exit 1. When the program's JVM ends while the tests
  wait on it (``System.exit``, ``Runtime.halt``, a crash), its status is the run's, as in one JVM, and
  nothing passes.

Known differences from one JVM: arguments cross by value (a program that mutates an argument does not
change the tests' copy; an immutable list the tests pass is a mutable copy in S), the program's checked
exceptions are not declared on the stubs, lambdas cannot be passed to the program, public fields of
the program's classes are not offered, names outside ASCII identifiers get no stub, and strings from
the program are interned (``==`` against a literal holds whenever the text is equal).

One idea a module: ``jvm`` (the harness's Java sources, the JVMs' command lines, the launcher),
``description`` (reading the program's classes from its describe step), ``type_grammar`` (one type of
the description into stub source), ``stubs`` (the tests' generated view of the program) and ``builds``
(the sandboxed builds and the language entry's hook).
"""

from judgebox.languages.java_split.builds import split_asserts
from judgebox.languages.java_split.jvm import LIBRARIES, launcher
from judgebox.languages.java_split.stubs import imports, stubs

__all__ = ["LIBRARIES", "imports", "launcher", "split_asserts", "stubs"]
