"""Store errors: each ``str()`` is one sentence a cog can show the user."""

from __future__ import annotations

from collections.abc import Sized
from typing import Any

from pydantic import ValidationError


class StoreError(Exception):
    """Anything the store refuses; ``str(err)`` is one readable sentence."""


class NotFound(StoreError):
    """The thing asked for is not stored."""


class Conflict(StoreError):
    """The row changed since it was read (a double click or another player); nothing was written."""


#: how a statement's trigger says a row it checks has moved on: RAISE with "conflict:<what>"
MOVED_ON_MARK = "conflict:"


class MovedOn(Conflict):
    """A version check inside one statement found ``what`` ("hand", "shoe") moved on; nothing was written.

    Raised by the database layer for a trigger's RAISE (bot/store/migrations/0004_hand_moves.sql, 0005); the
    repository that wrote the statement turns it into its own sentence.
    """

    def __init__(self, what: str) -> None:
        super().__init__(f"The {what} changed since it was read; nothing was written.")
        self.what = what


def moved_on(message: str) -> MovedOn | None:
    """The MovedOn that a driver's error ``message`` stands for; None for any other error."""
    return MovedOn(message[len(MOVED_ON_MARK) :]) if message.startswith(MOVED_ON_MARK) else None


class InvalidData(StoreError):
    """The data breaks a rule of the store (range, size, shape); nothing was written."""


class DatabaseTooNew(StoreError):
    """The database file was written by a newer version of the bot; it is refused, never used."""


#: The sheet's sections: a dict of names, so the part of an error's loc after one is a name, not a field.
_SECTIONS = ("attributes", "skills", "bonuses")
#: How a `validated` caller's ``what`` is named in a sentence, when "a <what>" would not do.
_OWNERS = {"Setting": "the server", "Wounds": "the wounds"}
#: the steps pydantic adds to a loc for a union's members, by their type
_TYPE_TAGS = frozenset({"int", "str", "float", "bool", "none", "list", "dict", "constrained-str"})
#: pydantic's error types for a number out of range: the words for its bound, and the bound's ctx key
_BOUNDS = {
    "greater_than_equal": ("at least", "ge"),
    "greater_than": ("more than", "gt"),
    "less_than_equal": ("at most", "le"),
    "less_than": ("less than", "lt"),
}
#: pydantic's error types for a value of the wrong type, by prefix, and what the value must be instead
_KINDS = (
    ("int_", "a whole number"),
    ("float_", "a number"),
    ("bool_", "true or false"),
    ("string_", "text"),
    ("list_", "a list"),
    ("tuple_", "a list"),
    ("dict_", "a group of named values"),
    ("model_", "a group of named values"),
    ("datetime_", "a date and time"),
)


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {noun}"


def _one(container: str) -> str:
    """The singular of a field holding several (``skills`` -> ``skill``, ``bonuses`` -> ``bonus``)."""
    if container == "dice":
        return "die"
    return container[:-2] if container.endswith("ses") else container.removesuffix("s")


def _owner(what: str) -> str:
    """What a `validated` caller checked, in a sentence: ``a sheet``, ``the server``."""
    return _OWNERS.get(what) or (_a(what.lower()) if what else "the data")


def _key_name(loc: tuple[int | str, ...]) -> str | None:
    """``a skill name`` for a dict key pydantic refused (its loc ends ``(..., "skills", key, "[key]")``)."""
    if len(loc) < 3 or loc[-1] != "[key]":
        return None
    return f"{_a(_one(str(loc[-3])))} name"


def _parts(loc: tuple[int | str, ...]) -> list[int | str]:
    """``loc`` without pydantic's own steps (a validator function, the type of a union's member): the
    fields, names and positions in the data itself."""
    parts: list[int | str] = []
    for part in loc:
        own = isinstance(part, str) and (part in _TYPE_TAGS or "[" in part or part.startswith("function-"))
        if not own or (parts and parts[-1] in _SECTIONS):  # a section's names may be anything
            parts.append(part)
    return parts


def _subject(loc: tuple[int | str, ...], what: str, *, text: bool) -> str:
    """What an error's ``loc`` names, in words: ``a sheet's notes``, ``the attribute Str``, ``the rating of
    the skill Climb``, ``an alternate's name`` (``text``: the error is about a name's length)."""
    key = _key_name(loc)
    if key is not None:
        return key
    parts = _parts(loc)
    if not parts:
        return _owner(what)
    last = parts[-1]
    if isinstance(last, int) and len(parts) >= 2:  # an item of a list
        item = _a(_one(str(parts[-2])))
        if len(parts) >= 4 and parts[-4] in _SECTIONS:
            return f"{item} of the {_one(str(parts[-4]))} {parts[-3]}"
        return f"{item}'s name" if text else item
    if len(parts) >= 2 and parts[-2] in _SECTIONS:  # a value in a sheet's section, by its name
        return f"the {_one(str(parts[-2]))} {last}"
    if len(parts) >= 3 and parts[-3] in _SECTIONS:
        return f"the {last} of the {_one(str(parts[-3]))} {parts[-2]}"
    if len(parts) >= 2:
        return f"the {last} of the {parts[-2]}"
    if what == "Setting":
        return f"the setting {last}"
    owner = _owner(what)
    return f"{owner}'{'' if owner.endswith('s') else 's'} {last}"


#: fields whose names are not words a user reads
_FIELD_WORDS = {"gm_role_ids": "GM roles"}


def _sentence(text: str) -> str:
    text = text.strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def invalid_from(error: ValidationError, what: str = "") -> InvalidData:
    """Turn a pydantic ValidationError into one InvalidData sentence (its first problem), in the table's
    words: the thing refused and the limit it broke, never pydantic's own message."""
    first: dict[str, Any] = dict(error.errors(include_url=False)[0])
    kind = str(first.get("type"))
    if kind == "value_error":
        # Our own validators already speak in sentences; pydantic prefixes them.
        return InvalidData(_sentence(str(first.get("msg", "")).removeprefix("Value error, ")))
    loc = tuple(first.get("loc", ()))
    context: dict[str, Any] = first.get("ctx") or {}
    given = first.get("input")
    count = len(given) if isinstance(given, Sized) else None
    subject = _subject(loc, what, text=kind.startswith("string_"))
    if kind == "string_too_short":  # (names are stripped first)
        least = context.get("min_length", 1)
        return InvalidData(
            _sentence(f"{subject} is empty" if least == 1 else f"{subject} needs {least} characters")
        )
    if kind == "string_too_long":
        return InvalidData(
            _sentence(f"{subject} can be at most {context.get('max_length')} characters long, not {count}")
        )
    parts = [str(part) for part in _parts(loc)]
    if kind in ("too_long", "too_short") and parts:
        # a list or a dict: say what holds them, and how many it may hold
        many = _FIELD_WORDS.get(parts[-1], parts[-1])
        owner = _a(_one(parts[-3])) if len(parts) >= 3 and parts[-3] in _SECTIONS else _owner(what)
        if kind == "too_short":
            return InvalidData(_sentence(f"{owner} needs at least {context.get('min_length')} {many}"))
        most = context.get("max_length")
        if isinstance(given, list | tuple):  # a list is given whole: say how long it was
            return InvalidData(_sentence(f"{owner} has at most {most} {many}; you gave {count}"))
        return InvalidData(_sentence(f"{owner} holds at most {most} {many}"))
    if kind in _BOUNDS:
        words, bound = _BOUNDS[kind]
        return InvalidData(_sentence(f"{subject} must be {words} {context.get(bound)}, not {given}"))
    if kind == "missing":
        return InvalidData(_sentence(f"{subject} is missing"))
    if kind == "extra_forbidden":
        return InvalidData(_sentence(f"{_owner(what)} has nothing called {str(loc[-1])!r}"))
    if kind in ("literal_error", "enum"):
        expected = str(context.get("expected", "")).replace("'", "")
        return InvalidData(_sentence(f"{subject} must be one of {expected}"))
    must = next((words for prefix, words in _KINDS if kind.startswith(prefix)), None)
    return InvalidData(_sentence(f"{subject} must be {must}" if must else f"{subject} is not valid"))


class MigrationFailed(StoreError):
    """A migration could not be applied; its transaction was rolled back and the file is as it was."""
