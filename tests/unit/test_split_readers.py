"""The split harnesses' readers of what the program side reports, on text an attacker wrote, without a toolchain:
C++'s type names and DWARF dumps, Go's types and function lists, Java's imports and its grammar's names and
types, each language's entry in the catalog (tests/languages/ runs the harnesses for real)."""

from __future__ import annotations

import re

import pytest

from judgebox import languages
from judgebox.languages import cpp_split, go_split, java_split


def describe(*lines: str) -> bytes:
    return "\n".join(lines).encode()


def test_gcc_type_names():
    parse = cpp_split.parse_type_name
    assert parse("std::vector<int, std::allocator<int> >").spell() == "std::vector<int >"
    assert parse("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >").kind == "string"
    assert parse("std::map<char, int, std::less<char>, std::allocator<std::pair<char const, int> > >").spell() \
        == "std::map<char, int >"
    assert parse("std::tuple<int, long long int, double>").spell() == "std::tuple<int, long long, double >"
    assert parse("long unsigned int").spell() == "unsigned long"
    for bad in ("std::vector<int, MyAlloc<int> >", "std::map<int, int, std::greater<int>, std::allocator<int> >",
                "int*", "Foo", "std::vector<int>)(", "std::shared_ptr<int>", "std::tuple<>", "std::less<int>",
                "<" * 100 + ">" * 100,
                "std::basic_string<wchar_t, std::char_traits<wchar_t>, std::allocator<wchar_t> >"):
        with pytest.raises(cpp_split.Unsupported):
            parse(bad)


def test_a_dump_that_lies_gives_only_functions_of_data_types():
    dump = """ <0><b>: Abbrev Number: 1 (DW_TAG_compile_unit)
 <1><20>: Abbrev Number: 2 (DW_TAG_subprogram)
    <21>   DW_AT_external    : 1
    <21>   DW_AT_name        : f
    <22>   DW_AT_linkage_name: _Z1fi"); asm("evil
    <23>   DW_AT_type        : <0x40>
    <24>   DW_AT_low_pc      : 0x0
 <1><30>: Abbrev Number: 2 (DW_TAG_subprogram)
    <31>   DW_AT_external    : 1
    <31>   DW_AT_name        : g(int); int h
    <34>   DW_AT_low_pc      : 0x0
 <1><38>: Abbrev Number: 2 (DW_TAG_subprogram)
    <39>   DW_AT_external    : 1
    <39>   DW_AT_name        : k
    <3a>   DW_AT_type        : <0x99>
    <3b>   DW_AT_low_pc      : 0x0
 <1><40>: Abbrev Number: 3 (DW_TAG_base_type)
    <41>   DW_AT_name        : int
"""
    funcs, refused = cpp_split.functions(dump, {"f", "g", "h", "k"})
    assert funcs == [] and set(refused) == {"f", "k"}


def test_the_go_entry_runs_assert_cases_split():
    assert languages.get("go").split_asserts is go_split.split_asserts


def test_types_are_read_as_an_attackers_text():
    assert go_split.canonical_type("map[string][]interface{}") == "map[string][]interface{}"
    assert go_split.canonical_type("[3][]uint8") == "[3][]uint8"
    for lie in ("main.T", "[]int; os.Exit(0)", "func()", "map[int]", "[-1]int", "*int", "chan int", "int)"):
        with pytest.raises(go_split.Unsupported):
            go_split.canonical_type(lie)
    functions, refused = go_split.program_functions(
        {"functions": [{"name": "len", "params": ["[]int"], "results": ["int"]},
                       {"name": "F", "params": ["int"], "results": ["string"]}], "refused": {}})
    assert [f.name for f in functions] == ["F"] and "len" in refused  # a stub named len would shadow Go's
    with pytest.raises(go_split.Unsupported):
        go_split.program_functions({"functions": [{"name": "F()", "params": [], "results": []}], "refused": {}})
    with pytest.raises(go_split.Unsupported):
        go_split.program_functions({"functions": [], "refused": {}, "extra": 1})


def test_the_java_entry_runs_assert_cases_split():
    assert languages.get("java").split_asserts is java_split.split_asserts


def test_only_names_and_types_of_the_grammar_reach_the_stubs():
    hostile = describe(
        "C\tSolution\t0\tc\t-\t",
        "K\t1\t",
        "M\t1\tadd\t\tint\tint\tint",
        "M\t1\tevil() { Runtime.getRuntime().halt(0); } int x\t\tint",
        "M\t1\tbad\t\tint; static { System.exit(0); } int\tint",
        "M\t1\tbad2\t\tjava.util.List<java.lang.Integer>>\tint",
        "M\t1\tbad3\t\t\"x\"\tint",
        "M\t1\tbad4\t\t@Nowhere\tint",
        "M\t1\tbad5\t\tT\tint",
        "M\t1\tbad6\t\tcom.evil.Thing\tint",
        "M\t1\tbad7\t<T> static {}\tT\tint",
        "M\t1\tequals\t\tboolean\tjava.lang.Object",
        "M\t1\tjudgebox$m0\t\tint",
        "M\t9\tstat\t<T extends java.lang.Comparable<T>>\tT\tjava.util.List<T>",
        "C\tSolution$Inner\t9\tc\t-\t",
        "M\t1\tget\t\tjava.util.Map<java.lang.String, @Solution$Inner[]>",
        "C\tArrays\t0\tc\t-\t",
        "C\tjava\t0\tc\t-\t",
        "C\tJudgeboxRt\t0\tc\t-\t",
        "C\tclass\t0\tc\t-\t",
        "C\tHidden\t2\tc\t-\t",
        "C\tMain\t0\tc\t-\t",
        "C\tA$A\t0\tc\t-\t",
        "X\tanything at all { }",
    )
    source = java_split.stubs(hostile, "public class Main { }")
    assert "public int add(int a0, int a1)" in source
    assert "public static <T extends java.lang.Comparable<T>> T stat(java.util.List<T> a0)" in source
    assert "java.util.Map<java.lang.String, JudgeboxStubs.Solution.Inner[]> get()" in source
    assert "public static class Arrays" in source  # harmless: ambiguous with java.util.Arrays in the tests
    for word in ("evil", "halt", "exit", "bad", "Nowhere", "com.evil", "static {", "class java", "class JudgeboxRt",
                 "class class", "Hidden", "class Main", "boolean equals", "judgebox$m0(", '"x"'):
        assert word not in source, word
    assert re.fullmatch(r"[\w\s.,<>?&\[\](){};=\"$@*/-]*", source)


def test_imports_carried_to_the_tests_are_java_packages_only():
    program = ("import java.util.*;\nimport java.util.stream.Collectors;\nimport static java.lang.Math.max;\n"
               "import evil.Thing;\n  import java.io.*; // x\nimport java.util.*;\n")
    assert java_split.imports(program) == "import java.util.*;\nimport java.util.stream.Collectors;\n"
