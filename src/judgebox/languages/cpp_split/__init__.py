"""C and C++ assert cases (the HumanEval-X form) with the program and the tests in two processes.

In one binary a program can copy the pass token from fd 4 into fd 3 itself, redefine what ``assert``
expands to, define ``__assert_fail``, or overload ``operator==`` for the tests' types. Here the tests never
share a translation unit, a binary or a process with the program:

1. **Signatures.** The program is compiled alone (``-O2 -g -c``, in the sandbox) and the DWARF of that
   object, dumped by ``readelf`` in the same sandboxed run, gives each of its global functions' name,
   symbol, return and parameter types. Only data types cross: integers, floating point, bool, char,
   ``std::string``, ``std::vector``, ``std::pair``, ``std::tuple``, ``std::map``/``set`` and their
   unordered kinds, by value or by reference. A function of any other type gets no stub (the tests that
   call it do not compile: CE). The dump is the program's (a program can shape its own debug info), so it
   is parsed as an attacker's text: a lie about a signature only changes what the program's own process
   does, since the tests' side spells every type itself from that closed set.
2. **The program's side** (S): the program's object (its ``main``, if any, renamed away, its debug info
   stripped) linked with a generated dispatcher that reads calls from the channel (fd 7), decodes the
   arguments by type, calls the function through its symbol and sends back the result as data (an
   exception: its ``what()``, which fails the call in the tests).
3. **The tests' side** (T): the tests, in a translation unit of their own after ``bits/stdc++.h``,
   ``using namespace std;`` and a generated stub per function the tests name (same signature, forwarding
   over the channel; in a namespace of its own, brought in by a using-declaration, so a stub can overload
   the standard library's names as the program's function would, but never define one of them: a
   program's ``double fabs(double)`` is a compile error there, not libc's fabs), so no macro,
   ``operator==`` or ``__assert_fail`` of the program reaches the tests; the tests' ``main`` is renamed
   in their object and ``harnesses/cpp/tests_main.c`` calls it and writes the pass (``asserts`` and the
   token) only after it returned; it also makes T non-dumpable. A failed ``assert`` writes
   ``assertion-failed`` (WA). T reads every reply with bounds checks; a malformed reply, a program that
   ended, crashed or threw is a failure (exit 1: RE), never a pass.

Both sides are static and -O2, with the precompiled ``bits/stdc++.h``. Everything is cached by content:
the program's object and functions and S by the program; the dispatcher's object by the functions'
signatures and T by the stubs and the tests, so the programs of a GRPO group (same signatures) share
those, and each further program costs its own compile and a link.

C programs (``c``) take the same path: S is the same C++ dispatcher around the C object; T is the C tests
with static C stubs (``harnesses/cpp/judgebox_split.h``). C's values are its scalars and ``char*`` /
``const char*`` strings (a ``char*`` argument gets the program's changes back, at most its own length).
A C function named like one of libc's gets no stub: in the tests' static binary the stub would define
libc's function for the tests' own calls too.

Known differences from one binary: arguments cross by value (a non-const reference argument gets the
program's new value back; pointers and arrays are not supported), default arguments, overloads,
templates, ``static``/``inline`` functions and program-defined types or globals used by the tests are not
available to the tests (CE), and the program's exceptions cannot be caught by the tests.

One idea a module: ``signatures`` (the closed set of types, a function's signature), ``dwarf`` (reading
the signatures from the program's object), ``dispatcher`` (S's generated source), ``stubs`` (T's
generated source), ``libc`` (the names a C program's function may not take), ``harness_sources`` (the
harness's own C/C++ files) and ``builds`` (the sandboxed build steps and the language entry's hook).
"""

from judgebox.languages.cpp_split.builds import harness
from judgebox.languages.cpp_split.dwarf import functions
from judgebox.languages.cpp_split.signatures import Unsupported, parse_type_name

__all__ = ["Unsupported", "functions", "harness", "parse_type_name"]
