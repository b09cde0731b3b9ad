"""Small helpers shared by the repositories: JSON in and out, timestamps, validation to InvalidData."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from bot.store.errors import InvalidData, invalid_from
from bot.store.models import utcnow

T = TypeVar("T")
MAX_DEPTH = 12
_SEQUENCES = (list, tuple)  # a tuple of types: isinstance is slower with a `list | tuple` union
_CONTAINERS = (dict, list, tuple)


def now_text() -> str:
    """The current UTC time as stored (ISO 8601)."""
    return utcnow().isoformat()


def parse_time(text: str) -> datetime:
    """A stored timestamp back to an aware datetime."""
    return datetime.fromisoformat(text)


def dumps(value: Any) -> str:
    """Compact JSON text for a column."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` levels deep in ``value``: a list or object holding
    only scalars is one level. It stops at the first branch that does, recursing at most ``limit + 1``
    levels, so hostile input cannot reach the interpreter's recursion limit."""
    if isinstance(value, dict):
        children: Any = value.values()
    elif isinstance(value, _SEQUENCES):
        children = value
    else:
        return False
    if limit <= 0:
        return True
    # a plain loop, not any() over a generator: every write runs this, and the generator's frame per
    # child is most of the cost
    for child in children:  # noqa: SIM110
        if isinstance(child, _CONTAINERS) and deeper_than(child, limit - 1):
            return True
    return False


def json_column(value: Any, what: str, max_chars: int) -> str:
    """Encode a plain-JSON value for a column, refusing what is not JSON, too big or too deep."""
    if isinstance(value, str):
        value = loads_limited(value, what, max_chars)
    try:
        text = dumps(value)
        text.encode("utf-8")  # a lone surrogate is no Unicode character: SQLite would refuse the text
    except RecursionError:
        raise InvalidData(f"The {what} nests deeper than {MAX_DEPTH} levels.") from None
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        raise InvalidData(f"The {what} must be plain JSON (objects, lists, text, numbers).") from None
    if len(text) > max_chars:
        raise InvalidData(f"The {what} is too big ({len(text)} characters; at most {max_chars}).")
    if deeper_than(value, MAX_DEPTH):
        raise InvalidData(f"The {what} nests deeper than {MAX_DEPTH} levels.")
    return text


def json_column_read_back(value: Any, what: str, max_chars: int) -> tuple[str, Any]:
    """`json_column`'s text, and the value reading that text back gives."""
    text = json_column(value, what, max_chars)
    return text, json.loads(text)


def loads_limited(text: str, what: str, max_chars: int) -> Any:
    """Decode JSON text, refusing non-JSON, huge or deeply nested input with one sentence."""
    if not isinstance(text, str | bytes):
        raise InvalidData(f"The {what} must be JSON text.")
    if len(text) > max_chars:
        raise InvalidData(f"The {what} is too big ({len(text)} characters; at most {max_chars}).")
    try:
        value = json.loads(text)
    except RecursionError:
        raise InvalidData(f"The {what} nests deeper than {MAX_DEPTH} levels.") from None
    except json.JSONDecodeError as err:
        raise InvalidData(
            f"Line {err.lineno} of the {what} is not valid JSON at column {err.colno}: "
            f"{_json_words(err.msg)}."
        ) from None
    except UnicodeDecodeError:
        raise InvalidData(f"The {what} is not valid JSON: it is not UTF-8 text.") from None
    except ValueError:  # Python reads at most 4,300 digits of a whole number: no value here is near that
        raise InvalidData(
            f"The {what} holds a number thousands of digits long, which no value can be."
        ) from None
    if deeper_than(value, MAX_DEPTH):
        raise InvalidData(f"The {what} nests deeper than {MAX_DEPTH} levels.")
    return value


#: The json module's messages in words a player who edited a file by hand can act on.
_JSON_WORDS = {
    "Expecting value": "a value should start here (text goes in double quotes)",
    "Expecting ',' delimiter": "a comma is missing before it",
    "Expecting ':' delimiter": "a colon is missing before it",
    "Expecting property name enclosed in double quotes": "a name in double quotes should follow "
    "(or there is a comma before a closing brace)",
    "Unterminated string starting at": "a text has no closing double quote",
    "Invalid control character at": "a text holds a line break or a tab",
    "Invalid \\escape": "a backslash starts something JSON does not know",
    "Extra data": "there is more after the end of the first value",
}


def _json_words(message: str) -> str:
    return _JSON_WORDS.get(message, message[:1].lower() + message[1:])


def validated(build: Callable[[], T], what: str = "") -> T:
    """Run a pydantic construction, turning a ValidationError into InvalidData."""
    try:
        return build()
    except ValidationError as err:
        raise invalid_from(err, what) from None
