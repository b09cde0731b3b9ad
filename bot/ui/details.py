"""The Details button under a roll's compact message: the full breakdown, the rule that decided it and the
exact odds, shown ephemerally to whoever clicks it.

A system renders two embeds for a roll: the compact one everyone sees (`bot.ui.embeds.compact_embed`) and
its details, which may cite rule ids. `bot.ui.rolls.publish` stores the details with the roll's log row
(``inputs["details"]``) and puts a `DetailsButton` (``details:<log_id>``) under the message; a click reads
the row again, so the button works after a restart. A hidden roll's details go only to those who may see
the roll (`may_see`); anyone else gets one sentence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import discord

from bot.store import NotFound, RollRecord, Store
from bot.ui.permissions import gm_of_roll
from bot.ui.reply import ID_PATTERN, ErrorReportingItem, refuse, reply

DETAILS_KEY = "details"  # the key of a roll's inputs that holds its details
DETAILS_BUDGET = 10_000  # characters of JSON: the log row's inputs hold at most 16,000 in all
NOT_FOR_YOU = "That roll is hidden: only those who saw it can open its details."
NOT_KEPT = "The details of that roll were not kept."
_KEPT = ("title", "description", "color", "fields", "footer")


def details_payload(embed: discord.Embed) -> dict[str, Any]:
    """The details embed as plain JSON for the log row, trailing fields dropped to fit its budget."""
    payload: dict[str, Any] = {key: value for key, value in embed.to_dict().items() if key in _KEPT}
    fields = list(payload.get("fields", []))
    while fields and len(json.dumps(payload, ensure_ascii=False)) > DETAILS_BUDGET:
        fields.pop()
        payload["fields"] = fields
    return payload


def with_details(inputs: Mapping[str, Any], details: discord.Embed | None) -> dict[str, Any]:
    """A roll's logged inputs with its details added (unchanged without details)."""
    if details is None:
        return dict(inputs)
    return {**inputs, DETAILS_KEY: details_payload(details)}


def stored_details(record: RollRecord) -> discord.Embed | None:
    """The details a roll was logged with, or None (a roll logged before Details existed)."""
    inputs = record.inputs if isinstance(record.inputs, dict) else {}
    payload = inputs.get(DETAILS_KEY)
    if not isinstance(payload, dict):
        return None
    return discord.Embed.from_dict({key: payload[key] for key in _KEPT if key in payload})


async def may_see(interaction: discord.Interaction[Any], store: Store, record: RollRecord) -> bool:
    """Who may see a roll's details: everyone once it is public or revealed; for a private roll its roller;
    for a GM roll its roller and the GMs of its channel; for a blind roll those GMs only."""
    if not record.hidden:
        return True
    if record.visibility in ("private", "gm") and interaction.user.id == record.user_id:
        return True
    if record.visibility in ("gm", "blind"):
        return await gm_of_roll(interaction, store, record)
    return False


def details_view(log_id: int, view: discord.ui.View | None = None) -> discord.ui.View:
    """``view`` (or a new one) with the Details button of roll ``log_id``."""
    if view is None:
        view = discord.ui.View(timeout=None)
    view.add_item(DetailsButton(log_id))
    return view


class DetailsButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"details:(?P<log_id>{ID_PATTERN})",
):
    """Show the roll's details to whoever clicks, if they may see the roll."""

    def __init__(self, log_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Details", style=discord.ButtonStyle.secondary, custom_id=f"details:{log_id}"
            )
        )
        self.log_id = log_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DetailsButton:
        return cls(int(match["log_id"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        store: Store = interaction.client.store
        try:
            record: RollRecord | None = await store.log.get(self.log_id)
        except NotFound:
            record = None
        if record is None or not await may_see(interaction, store, record):
            # one sentence for "no such roll" and "not yours", so ids cannot be probed
            await refuse(interaction, NOT_FOR_YOU)
            return
        embed = stored_details(record)
        if embed is None:
            await refuse(interaction, NOT_KEPT)
            return
        await reply(interaction, embed=embed, ephemeral=True)
