"""The program's side (S), generated: a dispatcher linked with the program's object that reads calls from
the channel, decodes the arguments by type, calls each function through its symbol and sends back the
result as data.
"""

from __future__ import annotations

from judgebox.languages.cpp_split.harness_sources import HEADER
from judgebox.languages.cpp_split.signatures import Function, Param


def program_side_source(funcs: list[Function]) -> str:
    """S: the dispatcher linked with the program's object."""
    out = ["#include <bits/stdc++.h>", f'#include "{HEADER}"', ""]
    for i, f in enumerate(funcs):
        ret = "void" if f.returns is None else _returned(f.returns)
        params = ", ".join(p.declare("") .rstrip() for p in f.params)
        out.append(f'extern {ret} judgebox_function_{i}({params}) __asm__("{f.symbol}");')
        out.append(f"static void judgebox_call_{i}(judgebox::Reader& r, judgebox::Writer& w) {{")
        args = []
        for k, p in enumerate(f.params):
            if p.type.kind == "cstring":
                out.append(f"    std::string a{k}; bool a{k}_present = judgebox::getCString(r, a{k});")
                args.append(f"(a{k}_present ? &a{k}[0] : nullptr)")
            else:
                out.append(f"    {p.type.spell()} a{k};")
                out.append(f"    judgebox::get(r, a{k});")
                args.append(f"std::move(a{k})" if p.mode == "rref" else f"a{k}")
        out.append("    r.finish();")
        call = f"judgebox_function_{i}({', '.join(args)})"
        if f.returns is None:
            out.append(f"    {call};")
        elif f.returns.type.kind == "cstring":
            out.append(f"    judgebox::putCString(w, {call});")
        else:
            out.append(f"    auto&& v = {call};")
            out.append(f"    judgebox::put<{f.returns.type.spell()}>(w, v);")
        for k, p in enumerate(f.params):
            if p.mode == "ref":
                out.append(f"    judgebox::put<{p.type.spell()}>(w, a{k});")
            elif p.type.name == "char*":  # a C program may change the string it was given
                out.append(f"    judgebox::putCString(w, a{k}_present ? a{k}.c_str() : nullptr);")
        out.append("}")
    handlers = ", ".join(f"judgebox_call_{i}" for i in range(len(funcs))) or "0"
    out.append(f"static const judgebox::Handler judgebox_handlers[] = {{{handlers}}};")
    out.append(f"int main() {{ judgebox::serve(judgebox_handlers, {len(funcs)}); }}")
    return "\n".join(out) + "\n"


def _returned(p: Param) -> str:
    spelled = p.type.spell()
    return {"value": spelled, "cref": f"const {spelled}&", "ref": f"{spelled}&", "rref": f"{spelled}&&"}[p.mode]
