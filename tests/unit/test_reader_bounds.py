"""The bounds of the readers of untrusted data, checked on the parsers alone (tests/adversarial/readers/
test_reader_bombs.py throws the bombs at a real ``judgebox score``, and reads a packed field at its 64 MiB bound): a
packed pickle of anything but one str is refused unbuilt, an expected value is weighed before it is parsed as a
Python literal, arguments nested past the recursion limit are invalid cases, and test-case text over the bound is
refused before json."""

from __future__ import annotations

import base64
import json
import pickle
import zlib

import pytest

from judgebox.errors import InvalidCases
from judgebox.judging.cases import MAX_RECORD_BYTES, load_problem
from judgebox.tools.score.formats import BadRecord, to_problem
from support.records import lcb_record


def test_a_packed_pickle_of_anything_but_one_str_is_refused_unbuilt() -> None:
    # no class is named, yet a list of references would multiply what was inflated: only a str's opcodes pass
    shared = "y" * 1000
    packed = base64.b64encode(zlib.compress(pickle.dumps([shared] * 1000))).decode()
    with pytest.raises(BadRecord, match="expected a pickled str, got the pickle opcode EMPTY_LIST"):
        to_problem(lcb_record("list", packed), "line 1")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # every protocol's str is still read
        cases = json.dumps([{"input": "z\n", "output": "z\n", "testtype": "stdin"}])
        packed = base64.b64encode(zlib.compress(pickle.dumps(cases, protocol))).decode()
        assert to_problem(lcb_record("ok", packed), "line 2").test_cases["inputs"] == ["hi\n", "z\n"]


def test_test_cases_text_over_the_bound_is_refused_before_json() -> None:
    with pytest.raises(InvalidCases, match="over the 64 MiB bound of one record"):
        load_problem('{"inputs": ["' + "1" * MAX_RECORD_BYTES + '"], "outputs": ["1"]}')


def test_an_expected_value_is_weighed_before_it_is_parsed_as_a_python_literal() -> None:
    # ast.literal_eval makes ~1 KiB a node: 800 KB of "{1}," would be ~500 MiB of parser objects
    bomb = {"inputs": ["1"], "outputs": ["[" + "{1}," * 200_000 + "]"], "fn_name": "f"}
    with pytest.raises(InvalidCases, match=r"parsing output 0 as a Python literal \(.* MiB\) is over the 64 MiB bound"):
        load_problem(bomb)
    small = load_problem({"inputs": ["1"], "outputs": ["({1}, 'a')"], "fn_name": "f"})
    assert small.cases[0].expected_value == ({1}, "a")


def test_arguments_nested_past_the_recursion_limit_are_invalid_cases() -> None:
    with pytest.raises(InvalidCases, match="nested too deeply"):
        load_problem({"inputs": ["[" * 100_000], "outputs": ["1"], "fn_name": "f"})
