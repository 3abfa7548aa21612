"""The JSON value counter (judgebox.judging.cases.JsonValues) that bounds what json.loads may make of a request
body or a JSONL line: its count against one made by walking json.loads' result, fed whole, in every split
in two, and a byte at a time, so strings, escapes and brackets inside strings that span chunks count right."""

from __future__ import annotations

import json
from typing import Any

import pytest

from judgebox.errors import InvalidCases
from judgebox.judging.cases import MAX_JSON_VALUES, JsonValues, json_values, load_problem


def _reference(value: Any) -> int:
    """The values json.loads made (keys not counted), an empty list or object counting twice."""
    if isinstance(value, dict):
        return 1 + (sum(map(_reference, value.values())) if value else 1)
    if isinstance(value, list):
        return 1 + (sum(map(_reference, value)) if value else 1)
    return 1


TEXTS = [
    "1",
    '""',
    "[]",
    "{}",
    "[{},{},[]]",
    "[1, 2, [3, [4, {}]], {\"a\": [5, 6]}]",
    '{"a,b": "[{,}]", "c": ["x,y", "\\"[", "\\\\", "\\\\\\"{,"]}',
    '["\\\\\\\\", ",", "\\"", "a\\\\\\"b,[c]"]',
    '{"k": "line\\nwith, commas\\t[and] {braces}", "n": [1.5e3, -2, true, false, null]}',
    '[  "\\u005c",  "\\u0022,", { "x" : { } } , [ [ ] ] ]',
    '{"inputs": ["1,2,3\\n4,5,6\\n", "\\"quoted, text\\"\\n"], "outputs": ["6\\n", "x"]}',
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_count_is_the_values_json_loads_makes(text: str) -> None:
    expected = _reference(json.loads(text))
    assert json_values(text) == expected
    assert json_values(text.encode()) == expected


@pytest.mark.parametrize("text", TEXTS)
def test_every_split_point_counts_the_same(text: str) -> None:
    data = text.encode()
    expected = _reference(json.loads(text))
    for cut in range(len(data) + 1):
        counter = JsonValues()
        counter.feed(data[:cut])
        assert counter.feed(data[cut:]) == expected, (text, cut)
        counter = JsonValues()
        counter.feed(text[:cut])
        assert counter.feed(text[cut:]) == expected, (text, cut)


@pytest.mark.parametrize("text", TEXTS)
def test_a_byte_at_a_time_and_empty_chunks_count_the_same(text: str) -> None:
    counter = JsonValues()
    for byte in text.encode():
        counter.feed(b"")
        counter.feed(bytes([byte]))
    assert counter.count == _reference(json.loads(text))


def test_chunks_longer_than_a_piece_and_memoryviews() -> None:
    value = {"stdin": "a,b,[c],{d},\\\"e\"\n" * 100_000, "list": [1, [], {}, "x,y"] * 50_000}
    data = json.dumps(value).encode()
    expected = _reference(value)
    assert json_values(data) == json_values(data.decode()) == expected
    counter = JsonValues()
    for start in range(0, len(data), 1000 + 7):
        counter.feed(memoryview(data)[start:start + 1007])
    assert counter.count == expected


def test_the_bound_and_its_message() -> None:
    counter = JsonValues()
    counter.feed(b"[" + b"1," * MAX_JSON_VALUES)
    assert counter.over
    commas = json.dumps({"stdin": "," * (MAX_JSON_VALUES + 10)})
    assert json_values(commas) == 2  # commas inside a string cost nothing
    with pytest.raises(InvalidCases, match=f"over the bound of {MAX_JSON_VALUES} JSON values"):
        load_problem("[" + "{}," * MAX_JSON_VALUES + "{}]")


def test_call_cases_given_as_json_text_are_counted_together() -> None:
    half = "\n".join(["1"] * (MAX_JSON_VALUES // 2 + 1))
    with pytest.raises(InvalidCases, match="JSON values"):
        load_problem({"fn_name": "f", "inputs": [half, half], "outputs": ["1", "1"]})
    assert len(load_problem({"fn_name": "f", "inputs": ["[1, 2]\n3"], "outputs": ["[3]"]}).cases) == 1
