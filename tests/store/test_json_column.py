"""JSON columns: orjson writes the values the bot builds, json the rest; both refuse the same things."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.store._util import MAX_DEPTH, deeper_than, dumps, json_column, json_column_read_back
from bot.store.errors import InvalidData

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=40,
)


def depth(value: Any) -> int:
    """How deeply lists and objects nest (the whole value walked): the reference `deeper_than` must agree
    with."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list | tuple):
        return 1 + max(map(depth, value), default=0)
    return 0


@settings(max_examples=400, deadline=None)
@given(plain, st.integers(min_value=0, max_value=14))
def test_deeper_than_agrees_with_the_whole_walk(value: Any, limit: int) -> None:
    assert deeper_than(value, limit) == (depth(value) > limit)


def test_deeper_than_stops_long_before_the_recursion_limit() -> None:
    deep: Any = 0
    for _ in range(100_000):  # far past the interpreter's recursion limit
        deep = [deep]
    assert deeper_than(deep, MAX_DEPTH)


def _outcome(value: Any) -> str | type[Exception]:
    try:
        return json_column(value, "test value", 10_000)
    except InvalidData:
        return InvalidData


@settings(max_examples=400, deadline=None)
@given(plain.filter(lambda v: not isinstance(v, str)))  # a str is JSON text to decode, tested below
def test_a_plain_value_reads_back_as_the_same_json_as_before(value: Any) -> None:
    text = _outcome(value)
    if depth(value) > MAX_DEPTH or len(dumps(value)) > 10_000:
        assert text is InvalidData
    else:
        assert isinstance(text, str) and json.loads(text) == json.loads(dumps(value))


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ([2**70], "[1180591620717411303424]"),  # beyond 64 bits: json writes it
        ({1: 2, None: 3}, '{"1":2,"null":3}'),  # keys that are not text: json's spelling
        ({"a": ("x", 1)}, '{"a":["x",1]}'),
        ("[1, 2]", "[1,2]"),  # JSON text is decoded and written compactly
    ],
)
def test_values_outside_the_fast_path_are_written_as_json_writes_them(value: Any, stored: str) -> None:
    assert json_column(value, "test value", 100) == stored


@pytest.mark.parametrize(
    "value",
    [
        [math.nan],
        {"x": math.inf},
        [object()],
        {"when": {1, 2}},
        {"a": "\ud800"},  # a lone surrogate: no Unicode character, so no SQLite text (it raised there)
        '["\\udfff"]',  # the same, as JSON text
    ],
)
def test_what_is_not_plain_json_is_refused(value: Any) -> None:
    with pytest.raises(InvalidData, match="must be plain JSON"):
        json_column(value, "test value", 1000)


def test_too_deep_and_too_big_are_refused_on_either_path() -> None:
    deep: Any = "leaf"
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(InvalidData, match="nests deeper"):
        json_column(deep, "test value", 10_000)
    with pytest.raises(InvalidData, match="too big"):
        json_column({"x": "y" * 100}, "test value", 50)
    with pytest.raises(InvalidData, match="too big"):
        json_column([2**70, "y" * 100], "test value", 50)  # the slow path


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1 == 1.0 == True would hide an int read as a float)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


@settings(max_examples=400, deadline=None)
@given(
    plain.filter(lambda v: not isinstance(v, str))
    | st.lists(st.integers(min_value=-(2**80), max_value=2**80))
)
def test_read_back_gives_what_json_reads_from_the_text(value: Any) -> None:
    try:
        text, read = json_column_read_back(value, "test value", 10_000)
    except InvalidData:
        assert _outcome(value) is InvalidData
        return
    assert text == json_column(value, "test value", 10_000) and _same(read, json.loads(text))


@pytest.mark.parametrize(
    "value", [[2**64, -(2**63) - 1, 2**64 - 1], {"a": ("x", 1)}, "[1, 2]", {"n": 10**30}]
)
def test_read_back_off_the_fast_path_is_json_s_reading(value: Any) -> None:
    # ints beyond 64 bits: orjson would read them back as floats, json as ints
    text, read = json_column_read_back(value, "test value", 1000)
    assert _same(read, json.loads(text))
