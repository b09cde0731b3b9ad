"""Issue 7's matrix: every roll command x every visibility mode, with exactly what each audience gets.

The roll commands are enumerated from the bot's command tree (every command with a ``visibility`` option),
so a new roll command fails `test_every_roll_command_is_in_the_matrix` until it has a row here.

Each mode rolls in a fresh channel with the bot's dice reset to the same seed, so the full result is the
same roll in every mode: the public mode's embed is the reference, and

- public: that embed in the channel; nothing for the GMs, nothing ephemeral;
- private: that embed ephemerally to the roller, and one public notice naming the roller and the kind of
  check only (no dice, numbers, result words, modifiers or odds: the notice must match a fixed template);
- gm: as private (the notice says "for the GM"), plus that embed in the GM channel with a Reveal button;
- blind: only "Your roll went to the GM." for the roller (a voluntary hand: its face-up cards to play on,
  then "over"), that embed in the GM channel with a Reveal button, and no public message at all (by design:
  `bot.ui.visibility.deliver` posts no notice for a blind roll);
- the roll log keeps the mode, and the GM copy's Reveal button points at that log entry.

Supply rolls are never blind (issue 7 decision in cogs/supply.py): that row expects a refusal that changes
nothing.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from discord import app_commands

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord
from bot.local.fake.world import FakeChannel, FakeMessage
from bot.ui.visibility import BLIND_ROLLER_TEXT, MODES
from cogs.supply import BLIND_SUPPLY
from tests.e2e.auto_options import minimal_options

SEED = 1234
NOTICE = re.compile(
    r"^🎲 <@(?P<user>\d+)> made a (?P<what>private roll|roll for the GM) \((?P<kind>[A-Za-z ]+)\)\.$"
)
NOTICE_WORDS = {"private": "private roll", "gm": "roll for the GM"}
# words of a result, a modifier or odds: none may appear in the kind named by a public notice
RESULT_WORDS = (
    "success", "fail", "critical", "fumble", "win", "margin", "sl", "bust", "blackjack", "wrap", "odds",
    "modifier", "happen", "level", "total", "dn", "base", "empty", "step",
)  # fmt: skip

Setup = Callable[[Harness, World, FakeChannel], Awaitable[None]]


@dataclass(frozen=True)
class Case:
    """One roll command of the matrix: its path, options, and what must exist before it can roll."""

    name: str
    path: str
    options: Callable[[FakeDiscord, World], dict[str, Any]]
    guild_setup: Callable[[Harness, World], Awaitable[None]] | None = None
    channel_setup: Setup | None = None
    voluntary: bool = False  # a cards hand played to its end with Stand
    blind_refusal: str | None = None  # the sentence a blind roll of this command is refused with


async def dn_sheet(harness: Harness, world: World) -> None:
    await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": world.alice.id,
            "name": "Dara",
            "system": "dn",
            "attributes": {"DEX": 13, "STR": 11},
            "skills": {"Climb": {"rating": 6, "attribute": "DEX"}},
        }
    )


async def sustained_pool(harness: Harness, world: World, channel: FakeChannel) -> None:  # RPS-8
    options = {"name": "Climb", "goal": 10_000, "minutes": 10, "member": world.alice, "base": 15}
    answer = await harness.slash(world.guild, channel, world.gm, "rps sustained start", options)
    assert not answer.ephemeral and answer.original.custom_ids()


async def rope(harness: Harness, world: World, channel: FakeChannel) -> None:  # DD-7
    options = {"member": world.alice, "item": "Rope", "die": 12}
    answer = await harness.slash(world.guild, channel, world.gm, "supply set", options)
    assert "d12" in answer.text()


def cards_options(mode: str) -> Callable[[FakeDiscord, World], dict[str, Any]]:
    def options(fake: FakeDiscord, world: World) -> dict[str, Any]:
        return minimal_options(fake, world, "cards task") | {"level": 5, "difficulty": 3, "mode": mode}

    return options


def fixed(**values: Any) -> Callable[[FakeDiscord, World], dict[str, Any]]:
    return lambda fake, world: values


CASES: tuple[Case, ...] = (
    Case("sysx check", "sysx check", fixed(sv=12)),
    Case(
        "sysx opposed",
        "sysx opposed",
        lambda fake, world: {"actor": world.alice, "target": world.bob, "actor_sv": 12, "target_sv": 10},
    ),
    Case(
        "sysx combined",
        "sysx combined",
        lambda fake, world: {"member1": world.alice, "member2": world.bob, "sv1": 10, "sv2": 11},
    ),
    Case("sysx synergy", "sysx synergy", fixed(skills="10, 12")),
    Case("sysx flat", "sysx flat", fixed(value=11)),
    Case("dn check", "dn check", fixed(skill="Climb"), guild_setup=dn_sheet),
    Case("dn raw", "dn raw", fixed(dn=12)),
    Case("rps check", "rps check", fixed(base=12)),
    Case("rps resisted", "rps resisted", fixed(party1="Orc", base1=10, party2="Elf", base2=8)),
    Case("rps sustained roll", "rps sustained roll", fixed(name="Climb"), channel_setup=sustained_pool),
    Case("decision roll", "decision roll", fixed(stat=4, target=18)),
    Case("decision contested", "decision contested", fixed(npc1="Orc", npc2="Elf")),
    Case("decision percent", "decision percent", fixed(chance=45)),
    Case("supply roll", "supply roll", fixed(item="Rope"), channel_setup=rope, blind_refusal=BLIND_SUPPLY),
    Case("cards task involuntary", "cards task", cards_options("involuntary")),
    Case("cards task voluntary", "cards task", cards_options("voluntary"), voluntary=True),
    Case("roll", "roll", fixed(expression="4d6kh3+2", label="Damage")),
)


NOT_ROLLS = {"setup settings"}  # its visibility option sets the channel's default; it rolls nothing


def roll_commands(tree: app_commands.CommandTree[Any]) -> set[str]:
    """Every slash command that takes a ``visibility`` option: the roll commands of issue 7."""
    return {
        command.qualified_name
        for command in tree.walk_commands()
        if isinstance(command, app_commands.Command)
        and any(p.name == "visibility" for p in command.parameters)
    } - NOT_ROLLS


async def test_every_roll_command_is_in_the_matrix(harness: Harness) -> None:
    found = roll_commands(harness.bot.tree)
    assert found == {case.path for case in CASES}
    # and each one offers exactly the four modes, but blind where a blind roll is refused
    never_blind = {case.path for case in CASES if case.blind_refusal is not None}
    for command in harness.bot.tree.walk_commands():
        if command.qualified_name in found and isinstance(command, app_commands.Command):
            [param] = [p for p in command.parameters if p.name == "visibility"]
            offered = set(MODES) - ({"blind"} if command.qualified_name in never_blind else set())
            assert not param.required and {c.value for c in param.choices} == offered, command.name


# -- one roll ------------------------------------------------------------------------------------------
@dataclass
class Rolled:
    """What one roll sent: the command's answer and, for a voluntary hand, the Stand click's."""

    channel: FakeChannel
    answer: Answer
    ended: Answer | None

    @property
    def messages(self) -> list[FakeMessage]:
        return self.answer.messages + (self.ended.messages if self.ended else [])


async def roll(harness: Harness, world: World, fake: FakeDiscord, case: Case, mode: str) -> Rolled:
    channel = fake.add_channel(world.guild, f"table-{mode}")
    harness.bot.rng = random.Random(SEED)  # setup rolls (a failed check to retry) the same each mode too
    if case.channel_setup is not None:
        await case.channel_setup(harness, world, channel)
    harness.bot.rng = random.Random(SEED)  # the same dice (and, in a new channel, the same shoe) each mode
    options = case.options(fake, world) | {"visibility": mode}
    if mode == "blind" and case.blind_refusal is not None:  # not offered: blind only as the channel's default
        del options["visibility"]
        default = await harness.slash(
            world.guild, channel, world.manager, "setup settings", {"visibility": "blind"}
        )
        assert default.ephemeral and default.embed["title"] == "Server settings"
    answer = await harness.slash(world.guild, channel, world.alice, case.path, options)
    ended = None
    if case.voluntary and not (case.blind_refusal and mode == "blind"):
        assert answer.original.custom_ids(), "a voluntary hand has buttons"
        ended = await harness.click(answer.original, "Stand", world.alice)
    return Rolled(channel, answer, ended)


def comparable(embed: dict[str, Any]) -> str:
    """An embed as text, with ids that differ per channel (#12, hand and log numbers) blanked."""
    return re.sub(r"#\d+", "#N", json.dumps(embed, sort_keys=True, ensure_ascii=False))


def assert_clean_notice(notice: FakeMessage, world: World, mode: str) -> str:
    """The public notice: the fixed one-liner naming the roller and the kind of check, nothing else."""
    assert not notice.ephemeral and notice.embeds == [] and notice.components == []
    assert notice.attachments == []
    matched = NOTICE.match(notice.content)
    assert matched, f"the notice says more than the template allows: {notice.content!r}"
    assert int(matched["user"]) == world.alice.id and matched["what"] == NOTICE_WORDS[mode]
    kind = matched["kind"].casefold()
    for word in RESULT_WORDS:
        assert word not in kind.split(), f"{word!r} in the notice's kind {kind!r}"
    assert notice.allowed_mentions == {"parse": []}  # names the roller without pinging
    return kind


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_each_mode_shows_each_audience_exactly_what_it_may_see(
    harness: Harness, world: World, fake: FakeDiscord, case: Case
) -> None:
    store = harness.bot.store
    set_gm = await harness.slash(
        world.guild, world.general, world.manager, "setup gm-channel", {"channel": world.gm_screen}
    )
    assert set_gm.ephemeral
    if case.guild_setup is not None:
        await case.guild_setup(harness, world)
    reference: str | None = None
    kinds: set[str] = set()
    for mode in ("public", "private", "gm", "blind"):
        rolled = await roll(harness, world, fake, case, mode)
        answer = rolled.answer
        channel = rolled.channel
        in_channel = [m for m in rolled.messages if m.channel_id == channel.id and not m.deleted]
        public_here = [m for m in in_channel if not m.ephemeral]
        gm_copies = [m for m in rolled.messages if m.channel_id == world.gm_screen.id]
        roller_copies = [m for m in in_channel if m.ephemeral]
        assert [m for m in rolled.messages if fake.channels[m.channel_id].is_dm] == []  # a GM channel is set
        logged = await store.log.last(world.guild.id, channel.id, 1)

        if mode == "blind" and case.blind_refusal is not None:
            assert answer.ephemeral and answer.content == case.blind_refusal
            assert public_here == [] and gm_copies == [] and len(rolled.messages) == 1
            assert all(r.command != case.path for r in logged)  # nothing rolled, nothing logged
            continue

        [last] = logged
        assert last.visibility == mode and last.user_id == world.alice.id
        assert last.command == case.path

        if mode == "public":
            [shown] = public_here
            assert shown.embeds and roller_copies == [] and gm_copies == []
            reference = comparable(shown.embeds[0])
            continue
        assert reference is not None

        if mode in ("private", "gm"):
            [notice] = public_here
            kinds.add(assert_clean_notice(notice, world, mode))
            full = [m for m in roller_copies if m.embeds]
            assert full
            assert comparable(full[-1].embeds[0]) == reference  # the roller's copy is the whole result
        else:  # blind: no public trace, the roller learns nothing
            assert public_here == []
            if case.voluntary:
                hand = answer.original
                assert hand.ephemeral and hand.embeds and hand.components == []  # ended: no buttons left
                assert hand.embed["title"].startswith("Blind hand") and "over" in hand.embed["title"]
                assert "went to the GM" in hand.text()
                extra = [m for m in roller_copies if m is not hand]
                assert extra == []
            else:
                [told] = roller_copies
                assert told.content == BLIND_ROLLER_TEXT and told.embeds == [] and told.components == []

        if mode == "private":
            assert gm_copies == []
            continue
        if case.voluntary:  # the copy opened at the deal says a hand is in play; the result comes apart
            note, copy = gm_copies
            assert note.embeds == [] and note.components == [] and "result comes when it ends" in note.content
            assert not any(word in note.content.casefold().split() for word in RESULT_WORDS)
        else:
            [copy] = gm_copies
        what = "hand" if case.path == "cards task" else "roll"  # a hand's copies say so, at its deal and end
        header = (
            f"🔒 {'Blind' if mode == 'blind' else 'GM'} {what} by {world.alice.mention} in <#{channel.id}>."
        )
        assert copy.content == header and not copy.ephemeral
        assert comparable(copy.embeds[0]) == reference  # the GMs get the whole result
        # Reveal, and the roll's Details under a compact result (issue 31)
        assert copy.custom_ids() in ([f"reveal:{last.id}"], [f"reveal:{last.id}", f"details:{last.id}"])
    assert len(kinds) == 1  # the private and gm notices name the same kind of check
