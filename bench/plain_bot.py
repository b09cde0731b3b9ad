"""The second floor: the bot's work written plainly on discord.py and aiosqlite, without our layers.

What a careful engineer would write for the same job, and nothing more: a real SQLite file in WAL mode
through aiosqlite (every statement on aiosqlite's thread, each one its own transaction), plain
`discord.Embed`s, answers through `interaction.response`.

- `/check skill:<name>` reads the roller's sheet (one row), rolls a d20 against attribute + rating,
  inserts one row into the roll log and answers with an embed (`send_message`): the work of
  `/rps check`, `/decision roll` and `/sysx check`.
- `/deal` stores a hand (one row) and posts it with a Hit button, a `discord.ui.DynamicItem` whose
  custom_id carries the row id (``hand:<id>:hit``). A click reads the row, updates it (checked against
  its version) and edits its message (`edit_message`): the work of a Hit.

bench/latency.py runs it as a subprocess beside the real bot and judges the bot against it; sheets are
stored beside the running bot with `add_sheet`, hands dealt through `/deal`. Like bench/bare_bot.py it
reads DISCORD_TOKEN and DISCORD_API_BASE from the environment, and DATABASE_PATH (the SQLite file),
DICE_SEED (optional) and LOG_LEVEL:

    DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT DATABASE_PATH=plain.db python bench/plain_bot.py
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from pathlib import Path
from typing import Any

import aiosqlite
import discord
from bare_bot import point_at, serve
from discord import app_commands
from discord.ext import commands

SCHEMA = """
CREATE TABLE IF NOT EXISTS sheets (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    name     TEXT NOT NULL,
    active   INTEGER NOT NULL DEFAULT 1,
    data     TEXT NOT NULL CHECK (json_valid(data))
);
CREATE UNIQUE INDEX IF NOT EXISTS sheets_one_active ON sheets (guild_id, owner_id) WHERE active = 1;

CREATE TABLE IF NOT EXISTS rolls (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER,
    channel_id INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    command    TEXT NOT NULL,
    inputs     TEXT NOT NULL CHECK (json_valid(inputs)),
    dice       TEXT NOT NULL CHECK (json_valid(dice)),
    result     TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rolls_by_channel ON rolls (channel_id, id);

CREATE TABLE IF NOT EXISTS hands (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER,
    channel_id INTEGER NOT NULL,
    owner_id   INTEGER NOT NULL,
    cards      TEXT NOT NULL CHECK (json_valid(cards)),
    finished   INTEGER NOT NULL DEFAULT 0,
    version    INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL
);
"""

SUCCESS, FAILURE = discord.Colour.green(), discord.Colour.red()


async def open_database(path: str | Path) -> aiosqlite.Connection:
    """The file in WAL mode with its tables; autocommit, as every change here is one statement."""
    db = await aiosqlite.connect(path, isolation_level=None)
    await db.execute("PRAGMA journal_mode = WAL")
    await db.execute("PRAGMA synchronous = NORMAL")
    await db.execute("PRAGMA busy_timeout = 5000")
    await db.executescript(SCHEMA)
    return db


async def add_sheet(
    path: str | Path,
    guild_id: int,
    owner_id: int,
    name: str,
    attributes: dict[str, int],
    skills: dict[str, Any],
) -> int:
    """Store an active sheet (written beside the running bot, as another process would); its row id."""
    db = await open_database(path)
    try:
        data = json.dumps({"attributes": attributes, "skills": skills})
        return await _insert(
            db,
            "INSERT INTO sheets (guild_id, owner_id, name, data) VALUES (?, ?, ?, ?)",
            (guild_id, owner_id, name, data),
        )
    finally:
        await db.close()


async def _insert(db: aiosqlite.Connection, sql: str, params: tuple[Any, ...]) -> int:
    row_id = await db.execute_insert(sql, params)
    assert row_id is not None
    return int(row_id[0])


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def hand_embed(owner: str, cards: list[int]) -> discord.Embed:
    """A hand's cards and total; over 21 is a bust."""
    total = sum(cards)
    embed = discord.Embed(title=f"{owner}'s hand", colour=FAILURE if total > 21 else SUCCESS)
    embed.add_field(name="Cards", value=", ".join(map(str, cards)))
    embed.add_field(name="Total", value=f"**{total}**" + (" (bust)" if total > 21 else ""))
    return embed


def bot_of(interaction: discord.Interaction[Any]) -> PlainBot:
    """The bot that received ``interaction`` (its database and dice)."""
    client = interaction.client
    assert isinstance(client, PlainBot)
    return client


class HitButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"hand:(?P<hand_id>[0-9]{1,18}):hit"
):
    """Hit on a stored hand: read the row, draw a card, write the row back if nobody moved it meanwhile."""

    def __init__(self, hand_id: int) -> None:
        super().__init__(
            discord.ui.Button(label="Hit", style=discord.ButtonStyle.primary, custom_id=f"hand:{hand_id}:hit")
        )
        self.hand_id = hand_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> HitButton:
        return cls(int(match["hand_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        rows = await bot.db.execute_fetchall(
            "SELECT owner_id, cards, finished, version FROM hands WHERE id = ?", (self.hand_id,)
        )
        if not rows:
            await interaction.response.send_message("This hand is gone.", ephemeral=True)
            return
        owner_id, cards_json, finished, version = next(iter(rows))
        if owner_id != interaction.user.id:
            await interaction.response.send_message("This is not your hand.", ephemeral=True)
            return
        if finished:
            await interaction.response.send_message("This hand is over.", ephemeral=True)
            return
        cards = [*json.loads(cards_json), bot.rng.randint(1, 10)]
        done = sum(cards) >= 21
        moved = await bot.db.execute_fetchall(
            "UPDATE hands SET cards = ?, finished = ?, version = version + 1, updated_at = ? "
            "WHERE id = ? AND version = ? RETURNING id",
            (json.dumps(cards), int(done), _now(), self.hand_id, version),
        )
        if not moved:  # another click moved the hand between the read and the write
            await interaction.response.send_message(
                "Someone moved this hand first; click again.", ephemeral=True
            )
            return
        embed = hand_embed(interaction.user.display_name, cards)
        if done:  # Discord keeps the message's buttons unless told otherwise
            await interaction.response.edit_message(embed=embed, view=None)
        else:
            await interaction.response.edit_message(embed=embed)


class PlainBot(commands.Bot):
    """Two commands and one button over one aiosqlite connection."""

    def __init__(self, database: str, rng: random.Random) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.database = database
        self.rng = rng
        self.tree.add_command(check)
        self.tree.add_command(deal)

    async def setup_hook(self) -> None:
        self.db = await open_database(self.database)
        self.add_dynamic_items(HitButton)
        await self.tree.sync()

    async def close(self) -> None:
        await super().close()
        if hasattr(self, "db"):
            await self.db.close()


@app_commands.command(name="check", description="A d20 against a skill of your sheet, logged.")
@app_commands.describe(skill="A skill on your sheet.")
@app_commands.guild_only()
async def check(interaction: discord.Interaction[Any], skill: str) -> None:
    """d20 <= attribute + rating succeeds; the margin is the difference."""
    bot = bot_of(interaction)
    rows = await bot.db.execute_fetchall(
        "SELECT name, data FROM sheets WHERE guild_id = ? AND owner_id = ? AND active = 1",
        (interaction.guild_id, interaction.user.id),
    )
    if not rows:
        await interaction.response.send_message("You have no sheet here.", ephemeral=True)
        return
    name, data = next(iter(rows))
    sheet = json.loads(data)
    entry = sheet["skills"].get(skill)
    if entry is None:
        await interaction.response.send_message(f"{name} has no skill named {skill!r}.", ephemeral=True)
        return
    attribute = entry["attribute"]
    value = sheet["attributes"][attribute] + entry["rating"]
    natural = bot.rng.randint(1, 20)
    succeeded = natural <= value
    result = f"{value - natural:+d} {'success' if succeeded else 'failure'}"
    await bot.db.execute(  # the roll is shown only once it is in the log
        "INSERT INTO rolls (guild_id, channel_id, user_id, command, inputs, dice, result, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            "check",
            json.dumps({"skill": skill, "value": value}),
            json.dumps([natural]),
            result,
            _now(),
        ),
    )
    embed = discord.Embed(title=f"{name}: {skill}", colour=SUCCESS if succeeded else FAILURE)
    embed.add_field(name="Roll", value=f"d20: **{natural}**")
    embed.add_field(
        name="Skill Value",
        value=f"{attribute} {value - entry['rating']} + {skill} {entry['rating']} = {value}",
    )
    embed.add_field(name="Result", value=result)
    await interaction.response.send_message(embed=embed)


@app_commands.command(name="deal", description="Deal a hand of two cards, with a Hit button.")
@app_commands.guild_only()
async def deal(interaction: discord.Interaction[Any]) -> None:
    """Store the hand first: its button's custom_id carries the row id."""
    bot = bot_of(interaction)
    cards = [bot.rng.randint(1, 10), bot.rng.randint(1, 10)]
    hand_id = await _insert(
        bot.db,
        "INSERT INTO hands (guild_id, channel_id, owner_id, cards, updated_at) VALUES (?, ?, ?, ?, ?)",
        (interaction.guild_id, interaction.channel_id, interaction.user.id, json.dumps(cards), _now()),
    )
    view = discord.ui.View(timeout=None)
    view.add_item(HitButton(hand_id))
    await interaction.response.send_message(embed=hand_embed(interaction.user.display_name, cards), view=view)


async def main() -> None:
    """Run until SIGTERM."""
    discord.utils.setup_logging(level=getattr(logging, os.environ.get("LOG_LEVEL", "INFO").upper()))
    api_base = os.environ.get("DISCORD_API_BASE")
    if api_base:
        point_at(api_base)
    seed = os.environ.get("DICE_SEED")
    rng = random.Random(int(seed)) if seed else random.SystemRandom()
    await serve(PlainBot(os.environ["DATABASE_PATH"], rng))


if __name__ == "__main__":
    asyncio.run(main())
