"""Helpers for a roll's compact message and its Details button (issue 31, item 1).

A roll's public message is a title and at most three short lines, with no rule ids; its Details button
shows the full breakdown, ephemerally, to whoever may see the roll.
"""

from __future__ import annotations

import re
from typing import Any

from bot.local.fake.harness import Answer, Harness
from bot.local.fake.world import FakeMessage, FakeUser

RULE_ID = re.compile(r"\b(SX|DN|RPS|DD|BJ|GM)-\d+\b")


def compact_lines(embed: dict[str, Any]) -> list[str]:
    """The lines under the title of a compact result; fails when it is not one."""
    assert embed.get("title"), embed
    assert not embed.get("fields"), f"a compact result has no fields: {embed.get('fields')}"
    assert not embed.get("footer"), f"a compact result has no footer: {embed.get('footer')}"
    assert not embed.get("author"), f"a compact result has no author line: {embed.get('author')}"
    lines = (embed.get("description") or "").splitlines()
    assert len(lines) <= 3, f"more than three lines: {lines}"
    text = "\n".join([embed["title"], *lines])
    assert not RULE_ID.search(text) and "RULES" not in text, f"a rule id in a player's message: {text}"
    return lines


def assert_compact(message: FakeMessage) -> list[str]:
    """``message`` holds one compact result and a Details button; returns its lines."""
    [embed] = message.embeds
    assert any(c.startswith("details:") for c in message.custom_ids()), message.custom_ids()
    return compact_lines(embed)


async def open_details(harness: Harness, message: FakeMessage, user: FakeUser) -> dict[str, Any]:
    """Click Details on ``message`` as ``user``; the details embed they alone see."""
    answer = await harness.click(message, "Details", user)
    assert answer.ephemeral, answer.content
    assert not answer.public(), "Details answered in public"
    [embed] = answer.original.embeds
    return embed


def asker(harness: Harness, answer: Answer) -> FakeUser:
    """The user whose interaction ``answer`` answers."""
    payload = answer.record.payload
    user = (payload.get("member") or {}).get("user") or payload["user"]
    return harness.fake.users[int(user["id"])]


async def shown(harness: Harness, answer: Answer, user: FakeUser | None = None) -> dict[str, Any]:
    """The details of the roll ``answer`` shows (its first message with a Details button), opened by
    ``user`` (default: whoever rolled)."""
    message = next(
        (
            m
            for m in [answer.original, *answer.messages]
            if any(c.startswith("details:") for c in m.custom_ids())
        ),
        None,
    )
    assert message is not None, f"no Details button in the answer: {[m.text() for m in answer.messages]}"
    return await open_details(harness, message, user or asker(harness, answer))
