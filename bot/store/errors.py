"""Store errors: each ``str()`` is one sentence a cog can show the user."""

from __future__ import annotations

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


def _field_name(loc: tuple[int | str, ...]) -> str:
    parts = [str(part) for part in loc if not str(part).startswith("function-")]
    return ".".join(parts) if parts else "the data"


def _key_name(loc: tuple[int | str, ...]) -> str | None:
    """``a skill name`` for a dict key pydantic refused (its loc ends ``(..., "skills", key, "[key]")``)."""
    if len(loc) < 3 or loc[-1] != "[key]":
        return None
    container = str(loc[-3])
    one = container[:-2] if container.endswith("ses") else container.removesuffix("s")
    return f"{'an' if one[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {one} name"


def _sentence(text: str) -> str:
    text = text.strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def invalid_from(error: ValidationError, what: str = "") -> InvalidData:
    """Turn a pydantic ValidationError into one InvalidData sentence (its first problem)."""
    first: dict[str, Any] = dict(error.errors(include_url=False)[0])
    message = str(first.get("msg", "invalid value"))
    if first.get("type") == "value_error":
        # Our own validators already speak in sentences; pydantic prefixes them.
        message = message.removeprefix("Value error, ")
        return InvalidData(_sentence(message))
    loc = tuple(first.get("loc", ()))
    key = _key_name(loc)
    field = key or _field_name(loc)
    prefix = f"{what} " if what and key is None else ""
    kind, context = first.get("type"), first.get("ctx") or {}
    if kind == "string_too_short" and context.get("min_length") == 1:  # (names are stripped first)
        return InvalidData(_sentence(f"{prefix}{field} is empty"))
    if kind == "string_too_long" and "max_length" in context:
        return InvalidData(_sentence(f"{prefix}{field} is longer than {context['max_length']} characters"))
    return InvalidData(_sentence(f"{prefix}{field}: {message[:1].lower() + message[1:]}"))


class MigrationFailed(StoreError):
    """A migration could not be applied; its transaction was rolled back and the file is as it was."""
