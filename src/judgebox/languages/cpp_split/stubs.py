"""The tests' side (T), generated: one stub per function the tests name, with its signature, forwarding
the call over the channel, before the tests in a translation unit of their own (C++ or C).

No macro, ``operator==`` or ``__assert_fail`` of the program reaches the tests: the stubs are all the
tests see of it.
"""

from __future__ import annotations

from judgebox.languages.cpp_split.harness_sources import HEADER
from judgebox.languages.cpp_split.signatures import Function, Type


def stubs(funcs: list[tuple[int, Function]]) -> str:
    """T: one stub per function, with its signature, forwarding the call to S."""
    out = ["#include <bits/stdc++.h>", f'#include "{HEADER}"', "using namespace std;", "namespace judgebox_program {"]
    for i, f in funcs:
        ret = "void" if f.returns is None else f.returns.type.spell()
        params = ", ".join(p.declare(f"a{k}") for k, p in enumerate(f.params))
        out.append(f"{ret} {f.name}({params}) {{")
        out.append("    try {")
        out.append(f"        ::judgebox::Writer w; w.u32({i});")
        for k, p in enumerate(f.params):
            out.append(f"        ::judgebox::put<{p.type.spell()}>(w, a{k});")
        out.append("        ::std::string reply;")
        out.append("        ::judgebox::Reader r = ::judgebox::call(w, reply);")
        if f.returns is not None:
            out.append(f"        {ret} v;")
            out.append("        ::judgebox::get(r, v);")
        for k, p in enumerate(f.params):
            if p.mode == "ref":
                out.append(f"        ::judgebox::get(r, a{k});")
        out.append("        r.finish();")
        if f.returns is not None:
            out.append("        return v;")
        out.append("    } catch (const ::judgebox::Malformed& e) {")
        out.append("        ::judgebox::testsFail(e.what);")
        out.append("    } catch (...) {")
        out.append('        ::judgebox::testsFail("the program\'s reply could not be read");')
        out.append("    }")
        out.append("}")
    out.append("}  // namespace judgebox_program")
    # Brought in by using-declarations, the stubs overload what the tests see of the standard library as the
    # program's functions would in one file, but never become the definition of one of its functions (a
    # program's ``double fabs(double)`` would otherwise define libc's fabs in the tests' binary): a stub
    # with the signature of a function already declared is an error, so is a name the tests define again.
    out.extend(f"using judgebox_program::{f.name};" for _, f in funcs)
    return "\n".join(out) + "\n"


C_PRELUDE = ("assert.h", "ctype.h", "errno.h", "float.h", "inttypes.h", "limits.h", "math.h", "stdarg.h",
             "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h")


def c_stubs(funcs: list[tuple[int, Function]]) -> str:
    """T for C tests: the standard headers the tests may rely on, then one static stub per function. A
    static definition after a header's declaration of the same name is an error, so a program function
    named like one of libc's (``fabs``) never stands in for it in the tests (see also ``_libc``)."""
    out = [f"#include <{h}>" for h in C_PRELUDE] + ['#include "judgebox_split.h"']
    for i, f in funcs:
        ret = "void" if f.returns is None else f.returns.type.spell()
        params = ", ".join(p.declare(f"a{k}") for k, p in enumerate(f.params)) or "void"
        out.append(f"static {ret} {f.name}({params}) {{")
        out.append("    judgebox_writer w = {0, 0, 0};")
        out.append("    judgebox_reader r;")
        if f.returns is not None:
            out.append(f"    {ret} v;")
        out.append(f"    judgebox_u32(&w, {i});")
        for k, p in enumerate(f.params):
            out.append(f"    {_c_put(p.type, f'a{k}')};")
        out.append("    r = judgebox_call(&w);")
        if f.returns is not None:
            out.append(f"    {_c_get(f.returns.type, 'v')};")
        for k, p in enumerate(f.params):
            if p.type.name == "char*":
                out.append(f"    judgebox_get_back(&r, a{k});")
        out.append("    judgebox_finish(&r);")
        if f.returns is not None:
            out.append("    return v;")
        out.append("}")
    return "\n".join(out) + "\n"


def _c_put(t: Type, name: str) -> str:
    if t.kind == "cstring":
        return f"judgebox_put_cstring(&w, {name})"
    if t.name == "bool":
        return f"judgebox_put_bool(&w, {name})"
    return f"judgebox_raw(&w, &{name}, sizeof {name})"


def _c_get(t: Type, name: str) -> str:
    if t.kind == "cstring":
        return f"{name} = judgebox_get_cstring(&r)"
    if t.name == "bool":
        return f"{name} = judgebox_get_bool(&r)"
    return f"judgebox_get_raw(&r, &{name}, sizeof {name})"


def tests_source(funcs: list[tuple[int, Function]], tests: str, c: bool = False) -> str:
    return f'{c_stubs(funcs) if c else stubs(funcs)}#line 1 "tests"\n{tests}\n'
