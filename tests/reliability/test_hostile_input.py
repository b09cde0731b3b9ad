"""Hostile input (issue 6): interactions Discord itself would never send, built by hypothesis.

Every command and option the bot synced is enumerated from the synced tree (so a command that lands later
is fuzzed too): values outside every declared range, wrong types, 10,000-character strings, unknown
choices, unresolved members, sheet files that are huge, deeply nested or not JSON. Buttons get unknown
and forged custom_ids: ids taken from another guild's or channel's messages, mutated ids, junk; clicks and
modals carry any content in the shape Discord gives them (a shape Discord never sends is discord.py's to
drop, and not fuzzed here). Each must end in an ephemeral refusal or be ignored: no message anyone else
sees, no ERROR logged, no request real Discord would refuse, and the database unchanged (every table
dumped before and after).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.client import COGS
from bot.local.fake.harness import World, standard_world
from bot.local.fake.server import (
    ATTACHMENT,
    AUTOCOMPLETE_RESULT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    ROLE,
    STRING,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    USER,
    FakeDiscord,
)
from bot.local.fake.world import FakeChannel, FakeGuild, FakeMessage, FakeUser, snowflake
from tests.e2e.probe_cog import PROBE
from tests.reliability.conftest import BotThread, dump, only_ephemeral_or_nothing, send_raw

pytestmark = pytest.mark.slow

# probe: the test-only cog fails on purpose (loaded for its hidden rolls only)
SKIP_COMMANDS = {"probe"}
DISCORD_INT = 2**53  # Discord's integer options lie in -2^53..2^53
# The suite runs the same 300 examples every time. A longer hunt with fresh ones:
#   HOSTILE_EXAMPLES=5000 HOSTILE_RANDOM=1 .venv/bin/python -m pytest tests/reliability/test_hostile_input.py
FUZZ = settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize="HOSTILE_RANDOM" not in os.environ,
)


# -- the table: a victim guild with hidden rolls (and, once their cogs exist, hands and pools), a rival guild
@dataclass
class Rival:
    guild: FakeGuild
    channel: FakeChannel
    manager: FakeUser  # Manage Server in the rival guild, nothing in the victim's


@dataclass
class Table:
    bot: BotThread
    world: World
    rival: Rival
    victim_ids: list[str]  # custom ids on messages the bot posted in the victim guild


def _rival(fake: FakeDiscord) -> Rival:
    manager = fake.add_user("rival-manager")
    guild = fake.add_guild("Rival table", manager)
    return Rival(guild, guild.channel("general"), manager)


async def _victim_messages(table_bot: BotThread) -> list[str]:
    """Post what has buttons in the victim guild: a GM copy of a blind roll (Reveal), a hand, a sustained
    pool and a GM's roll request."""
    h, w = table_bot.harness, table_bot.world
    await h.bot.store.settings.update(w.guild.id, gm_channel_id=w.gm_screen.id)
    await h.slash(w.guild, w.general, w.alice, "probe roll", {"visibility": "blind"})
    await h.slash(w.guild, w.general, w.bob, "probe roll", {"visibility": "gm"})
    await h.slash(w.guild, w.general, w.alice, "cards task", {"difficulty": 2, "level": 3})
    await h.slash(
        w.guild,
        w.general,
        w.gm,
        "rps sustained start",
        {"name": "Siege", "goal": 50, "minutes": 10, "base": 12},
    )
    await h.slash(w.guild, w.general, w.gm, "gm request-roll", {"member": w.alice, "system": "rps"})
    ids = []
    for message in h.fake.message_log:
        if message.guild_id == w.guild.id or h.fake.channels[message.channel_id].is_dm:
            ids += message.custom_ids()
    return sorted(set(ids))


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    rivals: list[Rival] = []

    def world_with_rival(fake: FakeDiscord) -> World:
        world = standard_world(fake)
        rivals.append(_rival(fake))
        return world

    running = BotThread(
        tmp_path_factory.mktemp("hostile"), cogs=(*COGS, *PROBE), build_world=world_with_rival
    )
    try:
        victim_ids = running.run(_victim_messages(running))
        assert running.harness.take_errors() == []
        yield Table(running, running.world, rivals[0], victim_ids)
    finally:
        running.close()


# -- the command tree ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Leaf:
    path: tuple[str, ...]
    top: dict[str, Any]
    options: tuple[dict[str, Any], ...]

    def __repr__(self) -> str:
        return "/" + " ".join(self.path)


def leaves(commands: list[dict[str, Any]]) -> list[Leaf]:
    """Every runnable command (subcommands flattened) with its declared options."""
    out: list[Leaf] = []

    def walk(path: tuple[str, ...], node: dict[str, Any], top: dict[str, Any]) -> None:
        subs = [o for o in node.get("options") or [] if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if subs:
            for sub in subs:
                walk((*path, sub["name"]), sub, top)
        else:
            out.append(Leaf(path, top, tuple(node.get("options") or [])))

    for command in commands:
        if command.get("type", 1) == 1 and command["name"] not in SKIP_COMMANDS:
            walk((command["name"],), command, command)
    return sorted(out, key=lambda leaf: leaf.path)


# -- values ------------------------------------------------------------------------------------------------
LONG_STRINGS = ["A" * 10_000, "@everyone " * 1_000, "𝕏" * 10_000, "\u0000\u200b" * 5_000, "`" * 10_000]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.floats(allow_nan=False, allow_infinity=False),
)
SHEET_FILES = st.sampled_from(
    [
        json.dumps({"name": "Huge", "system": "rps", "notes": "n" * 300_000}).encode(),
        ("[" * 50_000 + "]" * 50_000).encode(),
        ('{"a":' * 5_000 + "1" + "}" * 5_000).encode(),
        b"\xff\xfe\x00 definitely not json",
        b"",
        b"name,system\nAlice,rps\n",
        b"[]",
        b'"a sheet"',
        b'{"name": 5, "system": "nope"}',
        b'{"name": "A", "system": "rps", "attributes": {"Strength": "very"}}',
        b'{"name": "A", "system": "rps", "attributes": {"Strength": 99999999999999999999999}}',
        json.dumps({"name": "A" * 10_000, "system": "rps"}).encode(),
    ]
)


def raw(value: Any) -> tuple[str, Any]:
    return ("raw", value)


def valid(option: dict[str, Any]) -> st.SearchStrategy[tuple[str, Any]]:
    """A value Discord would send for ``option``."""
    kind = option["type"]
    if option.get("choices"):
        return st.sampled_from([c["value"] for c in option["choices"]]).map(raw)
    if kind in (INTEGER, NUMBER):
        low = option.get("min_value", -1000)
        high = option.get("max_value", 1000)
        if kind == INTEGER:
            return st.integers(int(low), int(high)).map(raw)
        return st.floats(low, high, allow_nan=False).map(raw)
    if kind == STRING:
        low = max(1, option.get("min_length", 1))
        high = max(low, min(option.get("max_length", 12), 12))
        return st.text("abcdefghij ", min_size=low, max_size=high).filter(str.strip).map(raw)
    if kind == BOOLEAN:
        return st.booleans().map(raw)
    if kind in (USER, MENTIONABLE):
        return st.sampled_from(["alice", "bob"]).map(lambda who: ("user", who))
    if kind == CHANNEL:
        return st.just(("channel", "general"))
    if kind == ROLE:
        return st.just(("role", "gm"))
    if kind == ATTACHMENT:
        return st.just(("attachment", json.dumps({"name": "Valid", "system": "rps"}).encode()))
    return JUNK.map(raw)


def _declared_type(kind: int, value: Any) -> bool:
    """Whether ``value`` has the JSON type Discord sends for an option of ``kind``."""
    if kind == BOOLEAN:
        return isinstance(value, bool)
    if kind == INTEGER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, str)  # text, and the snowflakes of members, channels, roles and files


def hostile(option: dict[str, Any], wrong_types: bool) -> st.SearchStrategy[tuple[str, Any]]:
    """A value outside what ``option`` declares: of the right JSON type, or (``wrong_types``) of another."""
    kind = option["type"]
    choices = [c["value"] for c in option.get("choices") or []]
    if wrong_types:
        # JUNK holds booleans and floats: of the declared type for a boolean or number option, so not junk
        out: list[st.SearchStrategy[tuple[str, Any]]] = [
            JUNK.filter(lambda value: not _declared_type(kind, value)).map(raw)
        ]
        if kind in (INTEGER, NUMBER):
            out.append(st.sampled_from(["12", "", "NaN", "1e9999"]).map(raw))
            if kind == INTEGER:
                out.append(st.floats(-1e6, 1e6).filter(lambda x: x != int(x)).map(raw))
        elif kind == STRING:
            out.append(st.integers().map(raw))
        elif kind == BOOLEAN:
            out.append(st.sampled_from(["true", 1, 0, "yes"]).map(raw))
        elif kind in (USER, MENTIONABLE, CHANNEL, ROLE, ATTACHMENT):
            out.append(st.sampled_from(["not-a-snowflake", "-1", "", 1.5]).map(raw))
        return st.one_of(out)
    out = []
    if kind in (INTEGER, NUMBER):
        low = option.get("min_value", -DISCORD_INT)
        high = option.get("max_value", DISCORD_INT)
        out += [st.integers(-(2**63), int(low) - 1).map(raw), st.integers(int(high) + 1, 2**63 - 1).map(raw)]
        if choices:
            out.append(st.integers(-100, 100).filter(lambda x: x not in choices).map(raw))
    elif kind == STRING:
        out.append(st.sampled_from(LONG_STRINGS).map(raw))
        if "max_length" in option:
            out.append(st.just("x" * (option["max_length"] + 1)).map(raw))
        if option.get("min_length", 0) > 0:
            out.append(st.just("").map(raw))
        if choices:
            out.append(st.text(min_size=1, max_size=20).filter(lambda x: x not in choices).map(raw))
    elif kind in (USER, MENTIONABLE):
        out.append(st.just(("user", "ghost")))
    elif kind == CHANNEL:
        out.append(st.just(("channel", "ghost")))
    elif kind == ROLE:
        out.append(st.just(("role", "ghost")))
    elif kind == ATTACHMENT:
        out += [SHEET_FILES.map(lambda data: ("attachment", data)), st.just(("attachment", None))]
    if not out:  # a boolean has no value outside its range
        out.append(st.booleans().map(raw))
    return st.one_of(out)


def _value(
    fake: FakeDiscord, world: World, kind: str, value: Any, resolved: dict[str, dict[str, Any]]
) -> Any:
    """The option's wire value; members, channels, roles and files also go into ``resolved``."""
    if kind == "raw":
        return value
    if kind == "user":
        if value == "ghost":
            return str(snowflake())
        user = {"alice": world.alice, "bob": world.bob}[value]
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        member = world.guild.members[user.id].payload(with_permissions=True)
        member.pop("user")
        resolved.setdefault("members", {})[str(user.id)] = member
        return str(user.id)
    if kind == "channel":
        if value == "ghost":
            return str(snowflake())
        resolved.setdefault("channels", {})[str(world.general.id)] = world.general.payload() | {
            "permissions": "0"
        }
        return str(world.general.id)
    if kind == "role":
        if value == "ghost":
            return str(snowflake())
        resolved.setdefault("roles", {})[str(world.gm_role.id)] = world.gm_role.payload()
        return str(world.gm_role.id)
    if kind == "attachment":
        if value is None:
            return str(snowflake())
        attachment = fake.attachment("sheet.json", value)
        resolved.setdefault("attachments", {})[str(attachment.id)] = attachment.payload()
        return str(attachment.id)
    raise AssertionError(kind)


async def _run_command(
    table: Table,
    leaf: Leaf,
    who: str,
    plans: dict[str, tuple[str, Any]],
    focused: str | None,
    wrong_types: bool = False,
) -> list[str]:
    bot, world = table.bot, table.world
    fake, harness = bot.fake, bot.harness
    declared = {o["name"]: o for o in leaf.options}
    resolved: dict[str, dict[str, Any]] = {}
    options: list[dict[str, Any]] = []
    for name, (kind, value) in plans.items():
        option: dict[str, Any] = {"name": name, "type": declared[name]["type"]}
        option["value"] = _value(fake, world, kind, value, resolved)
        if name == focused:
            option["focused"] = True
            if not wrong_types:  # Discord sends what is typed so far as text, whatever the option's type
                option["value"] = str(option["value"])
        options.append(option)
    for word in reversed(leaf.path[1:]):
        level = (
            SUB_COMMAND if not options or options[0].get("type") not in (SUB_COMMAND,) else SUB_COMMAND_GROUP
        )
        options = [{"name": word, "type": level, "options": options}]
    data: dict[str, Any] = {
        "id": leaf.top["id"],
        "name": leaf.top["name"],
        "type": 1,
        "options": options,
        "guild_id": str(world.guild.id),
    }
    if resolved:
        data["resolved"] = resolved
    user = {"alice": world.alice, "manager": world.manager}[who]
    record = fake.interaction_payload(4 if focused else 2, data, user=user, channel=world.general)
    before = dump(bot.database)
    answer = await send_raw(harness, record)
    problems = only_ephemeral_or_nothing(answer)
    if focused and record.callback_type not in (None, AUTOCOMPLETE_RESULT):
        problems.append(f"autocomplete answered with callback type {record.callback_type}")
    problems += _errors_and_state(table, before)
    return problems


def _errors_and_state(table: Table, before: dict[str, list[tuple[Any, ...]]]) -> list[str]:
    problems = [
        f"ERROR logged: {r.getMessage()}\n{r.exc_text or ''}" for r in table.bot.harness.take_errors()
    ]
    if table.bot.fake.violations:
        problems += [f"Discord would refuse: {v}" for v in table.bot.fake.violations]
        table.bot.fake.violations.clear()
    after = dump(table.bot.database)
    for name in sorted(set(before) | set(after)):
        if before.get(name) != after.get(name):
            problems.append(f"table {name} changed: {before.get(name)!r} -> {after.get(name)!r}"[:1500])
    return problems


@st.composite
def command_plans(
    draw: st.DrawFn, table: Table, wrong_types: bool
) -> tuple[Leaf, str, dict[str, tuple[str, Any]], str | None]:
    commands = leaves(table.bot.fake.global_commands)
    fuzzable = [c for c in commands if any(o["type"] != BOOLEAN or wrong_types for o in c.options)]
    leaf = draw(st.sampled_from(fuzzable))
    who = draw(st.sampled_from(["alice", "manager"]))
    names = [o["name"] for o in leaf.options if o["type"] != BOOLEAN or wrong_types]
    bad = draw(st.sets(st.sampled_from(names), min_size=1))
    plans: dict[str, tuple[str, Any]] = {}
    for option in leaf.options:
        if option["name"] in bad:
            plans[option["name"]] = draw(hostile(option, wrong_types))
        elif option.get("required") or draw(st.booleans()):
            plans[option["name"]] = draw(valid(option))
    typed = [o["name"] for o in leaf.options if o.get("autocomplete") and o["name"] in plans]
    focused = draw(st.sampled_from([None, *typed])) if typed else None
    return leaf, who, plans, focused


def test_the_tree_has_options_to_fuzz_and_buttons_to_forge(table: Table) -> None:
    commands = leaves(table.bot.fake.global_commands)
    assert [leaf for leaf in commands if leaf.options], commands
    for prefix in ("reveal:", "bj:", "rpspool:", "rr:", "rw:"):
        assert any(cid.startswith(prefix) for cid in table.victim_ids), (prefix, table.victim_ids)


@FUZZ
@given(data=st.data())
def test_out_of_range_options_get_a_refusal_or_nothing(table: Table, data: st.DataObject) -> None:
    """Values of the declared type outside the declared range, length or choices (discord.py checks none)."""
    leaf, who, plans, focused = data.draw(command_plans(table, wrong_types=False))
    problems = table.bot.run(_run_command(table, leaf, who, plans, focused))
    assert problems == [], f"{leaf} as {who} with {_short(plans)} (focused {focused}):\n" + "\n".join(
        problems
    )


@FUZZ
@given(data=st.data())
def test_wrongly_typed_options_get_a_refusal_or_nothing(table: Table, data: st.DataObject) -> None:
    """Values of another JSON type than declared (a string for an integer, null for a member...)."""
    leaf, who, plans, focused = data.draw(command_plans(table, wrong_types=True))
    problems = table.bot.run(_run_command(table, leaf, who, plans, focused, wrong_types=True))
    assert problems == [], f"{leaf} as {who} with {_short(plans)} (focused {focused}):\n" + "\n".join(
        problems
    )


def _short(plans: dict[str, tuple[str, Any]]) -> str:
    return repr(
        {
            k: (kind, value if not isinstance(value, str | bytes) else value[:40])
            for k, (kind, value) in plans.items()
        }
    )


# -- buttons -----------------------------------------------------------------------------------------------
def forged_ids(victim_ids: list[str]) -> st.SearchStrategy[str]:
    """Victim ids as they are, with their numbers changed, with junk around them, and plain junk."""
    numbers = st.one_of(
        st.integers(-5, 10**6),
        st.just(2**63 - 1),
        st.integers(2**63, 10**40),
        st.sampled_from(["-0", "0" * 30, "00001"]),
    ).map(str)
    pieces = [st.text(max_size=100), st.sampled_from(["bj:1:hit", "reveal:", "reveal:1:2", ":::", "x" * 101])]
    if victim_ids:
        pieces.append(st.sampled_from(victim_ids))
        pieces.append(
            st.tuples(st.sampled_from(victim_ids), numbers).map(lambda t: re.sub(r"\d+", t[1], t[0], count=1))
        )
        pieces.append(st.sampled_from(victim_ids).map(lambda cid: cid + ":extra"))
    return st.one_of(pieces).filter(lambda cid: len(cid) > 0)


async def _click(table: Table, custom_id: str, who: str) -> list[str]:
    bot, world, rival = table.bot, table.world, table.rival
    fake, harness = bot.fake, bot.harness
    user, channel = {
        "rival manager": (rival.manager, rival.channel),  # a GM elsewhere: forged ids from another guild
        "bob elsewhere": (world.bob, world.gm_screen),  # a player of the victim guild, another channel
        "alice elsewhere": (world.alice, world.gm_screen),  # the owner herself, from another channel
        "alice": (world.alice, world.general),
        "stranger by DM": (world.stranger, fake.dm_channel(world.stranger)),  # not even in the guild
    }[who]
    message = FakeMessage(
        id=snowflake(),
        channel_id=channel.id,
        guild_id=channel.guild_id,
        author=fake.bot_user,
        content="forged",
        components=[
            {"type": 1, "components": [{"type": 2, "style": 1, "label": "Click", "custom_id": custom_id}]}
        ],
    )
    fake.messages[message.id] = message
    record = fake.interaction_payload(
        3, {"custom_id": custom_id, "component_type": 2}, user=user, channel=channel, message=message
    )
    before = dump(bot.database)
    answer = await send_raw(harness, record)
    return only_ephemeral_or_nothing(answer) + _errors_and_state(table, before)


@FUZZ
@given(data=st.data())
def test_forged_and_unknown_custom_ids_get_a_refusal_or_nothing(table: Table, data: st.DataObject) -> None:
    custom_id = data.draw(forged_ids(table.victim_ids), label="custom_id")
    who = data.draw(
        st.sampled_from(["rival manager", "bob elsewhere", "alice elsewhere", "stranger by DM"]), label="who"
    )
    problems = table.bot.run(_click(table, custom_id, who))
    assert problems == [], f"{custom_id[:120]!r} clicked by {who}:\n" + "\n".join(problems)


def _adder_select(table: Table) -> tuple[FakeMessage, str, set[int]]:
    """The victim hand's message, its Add skill select's custom_id, and the adder values it offers."""
    fake = table.bot.fake
    custom_id = next(cid for cid in table.victim_ids if cid.startswith("bj:") and cid.endswith(":add"))
    shown = [m for m in reversed(fake.message_log) if custom_id in m.custom_ids()]
    # gone once an earlier example made a real move on the hand: that example failed, this one cannot run
    assert shown, "the victim hand no longer shows its Add skill select: an earlier input moved it"
    message = shown[0]
    offered = {int(option["value"]) for option in message.component(custom_id)["options"]}
    return message, custom_id, offered


# what Discord can carry in a string select's values: a list of texts (any texts, as a modified client sends)
SELECT_VALUES = st.lists(
    st.one_of(
        st.text(max_size=6),
        st.integers(-(10**6), 10**6).map(str),
        st.sampled_from(["+1", " 1", "1 ", "01", "1.0", "٣", "-0", "x" * 100]),
    ),
    max_size=4,
)


def _a_move_anyone_could_make(values: Any, offered: set[int]) -> bool:
    """One value that the bot reads as an offered adder ("3"): a legal move."""
    if len(values) != 1:
        return False
    text = values[0]
    return re.fullmatch(r"-?[0-9]{1,3}", text) is not None and int(text) in offered


async def _choose(table: Table, values: Any, component_type: int) -> list[str]:
    bot, world = table.bot, table.world
    message, custom_id, _ = _adder_select(table)
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type, "values": values}
    record = bot.fake.interaction_payload(3, data, user=world.alice, channel=world.general, message=message)
    before = dump(bot.database)
    answer = await send_raw(bot.harness, record)
    return only_ephemeral_or_nothing(answer) + _errors_and_state(table, before)


@FUZZ
@given(data=st.data())
def test_the_owner_choosing_junk_in_her_own_hands_select_is_refused(
    table: Table, data: st.DataObject
) -> None:
    """The hand's owner, in its channel, sends values the Add skill select never offered (BJ-7)."""
    _, _, offered = _adder_select(table)
    junk = SELECT_VALUES.filter(lambda v: not _a_move_anyone_could_make(v, offered))
    values = data.draw(junk, label="values")
    component_type = data.draw(st.sampled_from([3, 3, 2]), label="component_type")
    problems = table.bot.run(_choose(table, values, component_type))
    assert problems == [], f"{values!r:.200} as component {component_type}:\n" + "\n".join(problems)


@pytest.mark.parametrize("digits", ["arabic-indic", "fullwidth", "superscript", "double minus"])
def test_the_owner_spelling_an_offered_adder_in_other_digits_is_refused(table: Table, digits: str) -> None:
    """The select offers ASCII numbers; "٣" was once read as the adder 3 and "³" raised (BJ-7)."""
    _, _, offered = _adder_select(table)
    value = min(offered)
    assert 0 <= value <= 9
    text = {
        "arabic-indic": chr(0x660 + value),
        "fullwidth": chr(0xFF10 + value),
        "superscript": "⁰¹²³⁴⁵⁶⁷⁸⁹"[value],
        "double minus": f"--{value}",
    }[digits]
    problems = table.bot.run(_choose(table, [text], 3))
    assert problems == [], f"{text!r}:\n" + "\n".join(problems)


async def _component(table: Table, data: Any, kind: int, who: str) -> list[str]:
    """An interaction of type ``kind`` with ``data``, then /help: is the bot still there?"""
    bot, world, rival = table.bot, table.world, table.rival
    user, channel = {"alice": (world.alice, world.general), "rival": (rival.manager, rival.channel)}[who]
    message, _, _ = _adder_select(table)
    record = bot.fake.interaction_payload(
        kind, data, user=user, channel=channel, message=message if kind == 3 else None
    )
    before = dump(bot.database)
    answer = await send_raw(bot.harness, record)
    problems = only_ephemeral_or_nothing(answer) + _errors_and_state(table, before)
    # raises when the bot never hears of it (its connection gone) or leaves it unanswered
    alive = await bot.harness.slash(world.guild, world.general, world.alice, "help")
    if alive.callback_type is None:
        problems.append("the bot no longer answers /help")
    return problems


# The shapes Discord sends (its schema: a custom_id of 1 to 100 characters, a known component type, a select's
# values as texts) with anything inside them. A payload of another shape never comes from Discord, and
# discord.py drops it or fails on it without the bot answering.
COMPONENT_DATA = st.fixed_dictionaries(
    {
        "custom_id": st.one_of(
            st.text(min_size=1, max_size=100), st.sampled_from(["bj:1:hit", "bj:1:add", "x" * 100])
        ),
        "component_type": st.sampled_from([2, 3, 5, 6, 7, 8]),
    },
    optional={"values": st.lists(st.text(max_size=100), max_size=25)},
)
MODAL_DATA = st.fixed_dictionaries(
    {"custom_id": st.text(min_size=1, max_size=100), "components": st.just([])}
)


@FUZZ
@given(data=st.data())
def test_a_click_or_modal_of_any_content_gets_a_refusal_or_nothing(table: Table, data: st.DataObject) -> None:
    """Component and modal data in Discord's shape with any content, by the hand's owner or an outsider."""
    kind = data.draw(st.sampled_from([3, 3, 3, 5]), label="type")
    payload = data.draw(COMPONENT_DATA if kind == 3 else MODAL_DATA, label="data")
    who = data.draw(st.sampled_from(["rival", "alice"]), label="who")
    if who == "alice" and kind == 3:
        # the owner's real Hit, Stand or choice of an offered adder is a move, not hostile input
        payload["custom_id"] = "x" + payload["custom_id"][:99]
    problems = table.bot.run(_component(table, payload, kind, who))
    assert problems == [], f"type {kind} data {payload!r:.300} by {who}:\n" + "\n".join(problems)


async def _fresh_hidden_roll(table: Table) -> str:
    h, w = table.bot.harness, table.world
    answer = await h.slash(w.guild, w.general, w.alice, "probe roll", {"visibility": "blind"})
    [gm_copy] = answer.in_channel(w.gm_screen)
    return next(cid for cid in gm_copy.custom_ids() if cid.startswith("reveal:"))


@pytest.mark.parametrize("who", ["rival manager", "stranger by DM"])
def test_nobody_outside_the_guild_can_reveal_its_hidden_roll(table: Table, who: str) -> None:  # GM-4
    reveal = table.bot.run(_fresh_hidden_roll(table))
    problems = table.bot.run(_click(table, reveal, who))
    assert problems == [], "\n".join(problems)


async def _reveal_refusals(table: Table) -> list[str]:
    """The answers to a Reveal click on a real roll by outsiders and on ids that name no roll."""
    reveal = await _fresh_hidden_roll(table)
    h, w, rival, fake = table.bot.harness, table.world, table.rival, table.bot.fake
    texts = []
    for custom_id, user, channel in [
        (reveal, rival.manager, rival.channel),
        (reveal, w.stranger, fake.dm_channel(w.stranger)),
        (reveal, w.bob, w.general),
        ("reveal:987654321987", rival.manager, rival.channel),
        ("reveal:987654321987", w.manager, w.gm_screen),
        ("reveal:987654321987", w.stranger, fake.dm_channel(w.stranger)),
    ]:
        message = FakeMessage(
            id=snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=fake.bot_user,
            content="forged",
            components=[
                {"type": 1, "components": [{"type": 2, "style": 1, "label": "R", "custom_id": custom_id}]}
            ],
        )
        fake.messages[message.id] = message
        record = fake.interaction_payload(
            3, {"custom_id": custom_id, "component_type": 2}, user=user, channel=channel, message=message
        )
        answer = await send_raw(h, record)
        assert answer.public() == []
        texts.append(answer.content)
    return texts


def test_reveal_says_the_same_for_an_unknown_roll_and_someone_elses(table: Table) -> None:  # GM-1
    texts = table.bot.run(_reveal_refusals(table))
    assert len(set(texts)) == 1 and "Only a GM" in texts[0], texts


@pytest.mark.parametrize(
    "custom_id",
    [
        "reveal:9223372036854775808",
        "reveal:" + "9" * 120,
        "bj:9223372036854775808:hit",
        "rpspool:9223372036854775808:roll",
        "rr:9223372036854775808",
        "rr:9999999999999999999",
        "rw:9223372036854775808:1:sysx",
        "rw:1:9223372036854775808:sysx",
        "reveal:0",
        "reveal:-1",
    ],
)
def test_a_custom_id_past_64_bits_is_refused(table: Table, custom_id: str) -> None:
    problems = table.bot.run(_click(table, custom_id, "alice"))
    assert problems == [], "\n".join(problems)


def test_help_refuses_an_unknown_system(table: Table) -> None:
    [leaf] = [leaf for leaf in leaves(table.bot.fake.global_commands) if leaf.path == ("help",)]
    problems = table.bot.run(_run_command(table, leaf, "alice", {"system": ("raw", "nonsense")}, None))
    assert problems == [], "\n".join(problems)


async def _import(table: Table, data: bytes, declared_size: int | None) -> list[str]:
    bot, world = table.bot, table.world
    fake, harness = bot.fake, bot.harness
    command = next(c for c in fake.global_commands if c["name"] == "sheet")
    attachment = fake.attachment("sheet.json", data)
    payload = attachment.payload()
    if declared_size is not None:
        payload["size"] = declared_size  # a lying size: the bot must not trust it
    options = [
        {
            "name": "import",
            "type": SUB_COMMAND,
            "options": [{"name": "file", "type": ATTACHMENT, "value": str(attachment.id)}],
        }
    ]
    body = {
        "id": command["id"],
        "name": "sheet",
        "type": 1,
        "options": options,
        "guild_id": str(world.guild.id),
        "resolved": {"attachments": {str(attachment.id): payload}},
    }
    record = fake.interaction_payload(2, body, user=world.alice, channel=world.general)
    before = dump(bot.database)
    answer = await send_raw(harness, record)
    problems = only_ephemeral_or_nothing(answer) + _errors_and_state(table, before)
    if record.callback is None:
        problems.append("left unanswered")
    return problems


HOSTILE_SHEETS = [
    ("huge", json.dumps({"name": "Huge", "system": "rps", "notes": "n" * 300_000}).encode()),
    ("nested lists", ("[" * 50_000 + "]" * 50_000).encode()),
    ("nested objects", ('{"a":' * 5_000 + "1" + "}" * 5_000).encode()),
    (
        "nested inside a sheet",
        json.dumps({"name": "N", "system": "rps", "notes": "x"}).replace('"x"', "[" * 40 + "]" * 40).encode(),
    ),
    ("not utf-8", b"\xff\xfe\x00 definitely not json"),
    ("empty", b""),
    ("csv", b"name,system\nAlice,rps\n"),
    ("a list", b"[]"),
    ("a string", b'"a sheet"'),
    ("wrong types", b'{"name": 5, "system": "nope"}'),
    ("attribute not a number", b'{"name": "A", "system": "rps", "attributes": {"Strength": "very"}}'),
    (
        "attribute past 64 bits",
        b'{"name": "A", "system": "rps", "attributes": {"Strength": 99999999999999999999999}}',
    ),
    ("name of 10,000 characters", json.dumps({"name": "A" * 10_000, "system": "rps"}).encode()),
    ("unknown fields", b'{"name": "A", "system": "rps", "owner_id": 1, "guild_id": 2, "id": 3}'),
    ("NaN", b'{"name": "A", "system": "rps", "attributes": {"Strength": NaN}}'),
    # valid JSON, but the text it escapes is no Unicode text: SQLite cannot store it
    ("a lone surrogate", b'{"name": "A\\ud800", "system": "rps"}'),
    ("a lone surrogate in the notes", b'{"name": "A", "system": "rps", "notes": "\\udfff x"}'),
]


@pytest.mark.parametrize(("what", "data"), HOSTILE_SHEETS, ids=[w for w, _ in HOSTILE_SHEETS])
@pytest.mark.parametrize("declared_size", [None, 100], ids=["true size", "size 100"])
def test_a_hostile_sheet_file_gets_one_ephemeral_sentence(
    table: Table, what: str, data: bytes, declared_size: int | None
) -> None:
    problems = table.bot.run(_import(table, data, declared_size))
    assert problems == [], f"{what}:\n" + "\n".join(problems)


# -- the tree's guard (bot/ui/options.py): one ephemeral sentence naming the option ------------------------
async def _answer_to(table: Table, path: tuple[str, ...], values: dict[str, Any]) -> tuple[str, list[str]]:
    """Run ``path`` with the required options at their lowest valid value, then ``values`` (raw) on top."""
    bot = table.bot
    [leaf] = [leaf for leaf in leaves(bot.fake.global_commands) if leaf.path == path]
    plans: dict[str, tuple[str, Any]] = {}
    for option in leaf.options:
        if option.get("required"):
            if option.get("choices"):
                plans[option["name"]] = raw(option["choices"][0]["value"])
            elif option["type"] == INTEGER:
                plans[option["name"]] = raw(option.get("min_value", 1))
            elif option["type"] == USER:
                plans[option["name"]] = ("user", "bob")
            else:
                plans[option["name"]] = raw("x")
    plans |= {name: raw(value) for name, value in values.items()}
    first = len(bot.fake.message_log)
    problems = await _run_command(table, leaf, "manager", plans, None)
    texts = [m.text() for m in bot.fake.message_log[first:] if m.ephemeral]
    return " ".join(texts), problems


@pytest.mark.parametrize(
    ("path", "values", "sentence"),
    [
        (("sysx", "check"), {"roll_modifier": -11}, "roll_modifier must be between -10 and 10."),
        (("sysx", "check"), {"roll_modifier": "3"}, "roll_modifier must be a whole number."),
        (("sysx", "check"), {"roll_modifier": 2.5}, "roll_modifier must be a whole number."),
        (("sysx", "check"), {"roll_modifier": True}, "roll_modifier must be a whole number."),
        (("setup", "channel-gm", "add"), {"member": None}, "member must be a user."),
        (("setup", "channel-gm", "add"), {"member": "123"}, "member must be a user."),  # not in resolved
    ],
)
def test_the_tree_refuses_an_option_breaking_its_declaration(
    table: Table, path: tuple[str, ...], values: dict[str, Any], sentence: str
) -> None:
    text, problems = table.bot.run(_answer_to(table, path, values))
    assert problems == [] and text == sentence, (text, problems)


def test_a_missing_required_option_is_named(table: Table) -> None:
    bot = table.bot
    [leaf] = [
        leaf for leaf in leaves(bot.fake.global_commands) if leaf.path == ("setup", "channel-gm", "add")
    ]
    first = len(bot.fake.message_log)
    problems = table.bot.run(_run_command(table, leaf, "manager", {}, None))
    texts = [m.text() for m in bot.fake.message_log[first:] if m.ephemeral]
    assert problems == [] and texts == ["member is required."], (texts, problems)
