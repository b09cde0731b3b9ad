"""JSON columns: orjson writes the values the bot builds, json the rest; both refuse the same things."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.store._util import MAX_DEPTH, depth, dumps, json_column
from bot.store.errors import InvalidData

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=40,
)


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
        ({"a": "\ud800"}, '{"a":"\ud800"}'),  # a lone surrogate: orjson refuses it, json writes it as before
        ([2**70], "[1180591620717411303424]"),  # beyond 64 bits: json writes it
        ({1: 2, None: 3}, '{"1":2,"null":3}'),  # keys that are not text: json's spelling
        ({"a": ("x", 1)}, '{"a":["x",1]}'),
        ("[1, 2]", "[1,2]"),  # JSON text is decoded and written compactly
    ],
)
def test_values_outside_the_fast_path_are_written_as_json_writes_them(value: Any, stored: str) -> None:
    assert json_column(value, "test value", 100) == stored


@pytest.mark.parametrize("value", [[math.nan], {"x": math.inf}, [object()], {"when": {1, 2}}])
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
