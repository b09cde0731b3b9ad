"""`/gm`, what a GM uses at the table, and `/setup`, what a server admin sets up once.

`/gm` (pending modifiers GM-3, blind-roll requests, claiming a table) carries no default permission: every
GM (GM-1) sees it and the runtime check `@gm_only()` refuses everyone else (GM-2). `/setup` (GM roles,
channel GMs, the GM channel, server settings) keeps Manage Server as Discord's default and checks it at run
time (`@manage_guild_only()`). Both are guild-only: they act on a guild's channels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.errors import RuleError
from bot.core.systemx import Margin, parse_chart
from bot.store import MARGINS, MODIFIER_KINDS, SYSTEMS, VISIBILITIES, GuildSettings, Store
from bot.store.models import MAX_MODIFIER_USES, REPLACING_KINDS
from bot.ui.embeds import info_embed, shown_name
from bot.ui.gm import (
    KIND_WORDS,
    cleared_sentence,
    kind_allows,
    modifiers_embed,
    settings_embed,
    system_label,
    value_text,
)
from bot.ui.permissions import gm_only, manage_guild_only, player_readers
from bot.ui.reply import UserError, defer, reply
from bot.ui.requests import (
    REQUEST_ITEMS,
    note_request_message,
    open_request,
    request_text,
    request_view,
)
from bot.ui.roll_inputs import at_once
from bot.ui.rps import ASSUMED_SUCCESS
from bot.ui.sysx import margin_style
from bot.ui.visibility import HOW_TO_REACH_A_GM, gm_channel_readers, gm_reachable, role_names

if TYPE_CHECKING:
    from bot.client import TabletopBot

Choice = app_commands.Choice
SYSTEM_CHOICES = [Choice(name=system_label(s), value=s) for s in SYSTEMS]
MAX_CHART_FILE = 20_000
VISIBILITY_WORDS = {
    "public": "public: everyone sees rolls",
    "private": "private: the roller, and the GMs in the log",
    "gm": "gm: the roller and the GMs",
    "blind": "blind: only the GMs",
}


def _store(interaction: discord.Interaction[Any]) -> Store:
    store: Store = interaction.client.store
    return store


def _here(interaction: discord.Interaction[Any]) -> tuple[int, int]:
    if interaction.guild is None or interaction.channel_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild.id, interaction.channel_id


def _name(user: discord.abc.User) -> str:
    return shown_name(user.display_name)


async def kind_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """The modifier kinds of the chosen system (all systems' kinds before one is chosen)."""
    system = getattr(interaction.namespace, "system", None)
    systems = [system] if system in MODIFIER_KINDS else list(SYSTEMS)
    out: list[Choice[str]] = []
    for sys in systems:
        for kind in MODIFIER_KINDS[sys]:
            label = f"{KIND_WORDS.get(kind, kind)}: {kind_allows(sys, kind)}"
            if len(systems) > 1:
                label = f"{system_label(sys)} {label}"
            if current.casefold() in label.casefold() and all(c.value != kind for c in out):
                out.append(Choice(name=label[:100], value=kind))
    return out[:25]


async def value_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """Suggested values for the chosen kind: the margins, or the range's whole numbers."""
    system = getattr(interaction.namespace, "system", None)
    kind = getattr(interaction.namespace, "kind", None)
    allowed = MODIFIER_KINDS.get(str(system), {}).get(str(kind))
    if allowed is None:
        return []
    if isinstance(allowed[0], str):
        words = [str(w) for w in allowed]
    else:
        low, high = int(allowed[0]), int(allowed[1])
        if low == high:  # advantage, disadvantage: no value to give
            return []
        if system == "cards":  # a task difficulty, by name: it replaces the one asked for
            named = [
                (f"{v}: {value_text('cards', 'difficulty', v).strip()}", str(v)) for v in range(low, high + 1)
            ]
            return [Choice(name=n, value=v) for n, v in named if current.strip().casefold() in n.casefold()]
        words = [f"{v:+d}" if v else "0" for v in range(low, high + 1)]
    return [Choice(name=w, value=w) for w in words if current.strip().casefold() in w.casefold()][:25]


def parse_value(system: str, kind: str, value: str | None) -> int | str:
    """The GM's typed value as the store wants it; one sentence when it cannot be."""
    kinds = MODIFIER_KINDS[system]
    if kind not in kinds:
        raise UserError(f"{system_label(system)} takes a modifier of kind {', '.join(kinds)}, not {kind!r}.")
    allowed = kinds[kind]
    if isinstance(allowed[0], str):
        if value is None:
            raise UserError(f"Give a value for {KIND_WORDS[kind]}: one of {kind_allows(system, kind)}.")
        try:
            margin = Margin.parse(value.strip().upper())
        except RuleError:
            margin = None
        letters = margin.letters() if margin is not None else value.strip().upper()
        if letters not in MARGINS:
            raise UserError(f"A required margin is one of {', '.join(MARGINS)}, not {value.strip()!r}.")
        return letters
    low, high = int(allowed[0]), int(allowed[1])
    word = KIND_WORDS[kind]
    if low == high:  # advantage, disadvantage: the modifier is the kind itself
        if value is None or value.strip().lstrip("+") in ("", str(low)):
            return low
        raise UserError(
            f"{'An' if word[0] in 'aeiou' else 'A'} {word} modifier takes no value; leave value empty."
        )
    if value is None:
        raise UserError(f"Give a value for {word}: a whole number from {low} to {high}.")
    text = value.strip().replace("−", "-")
    if system == "cards" and text[:1] in "+-" and text[1:].strip():
        # a task difficulty replaces the one asked for: "+1" read as a step harder would set Very Easy
        easiest, hardest = (value_text("cards", "difficulty", v).strip() for v in (low, high))
        raise UserError(
            "A cards difficulty replaces the task's, so give its level without a sign: "
            f"from {easiest} to {hardest}."
        )
    try:
        number = int(text)
    except ValueError:
        raise UserError(
            f"{value.strip()!r} is not a whole number; a {word} runs from {low} to {high}."
        ) from None
    if not low <= number <= high:
        raise UserError(f"A {word} runs from {low} to {high}, not {number}.")
    if number == 0 and kind not in REPLACING_KINDS.get(system, frozenset()):
        # it would change nothing, yet use up the players' next rolls and show on them
        raise UserError(f"A {word} of 0 changes nothing; give one from {low} to {high} other than 0.")
    return number


class GM(commands.Cog):
    """The GM's tools at the table."""

    gm = app_commands.Group(
        name="gm",
        description="GM tools: modifiers, blind-roll requests, claiming this table.",
        guild_only=True,
    )

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    # -- GM-3: pending modifiers ----------------------------------------------------------------------------
    @gm.command(name="modifier", description="Leave a modifier for a player's (or everyone's) next rolls.")
    @app_commands.describe(
        system="The rule system the modifier applies to.",
        kind="What it changes (depends on the system).",
        value="Its value (a whole number, or a margin such as S1); none for advantage or assumed success.",
        member="The player (default: everyone in this channel).",
        uses="How many rolls it lasts (for everyone: each player's next rolls).",
    )
    @app_commands.choices(system=SYSTEM_CHOICES)
    @app_commands.autocomplete(kind=kind_choices, value=value_choices)
    @gm_only()
    async def modifier(
        self,
        interaction: discord.Interaction[Any],
        system: str,
        kind: app_commands.Range[str, 1, 32],
        value: app_commands.Range[str, 1, 8] | None = None,
        member: discord.Member | None = None,
        uses: app_commands.Range[int, 1, MAX_MODIFIER_USES] = 1,
    ) -> None:
        guild_id, channel_id = _here(interaction)
        kind = kind.strip().lower()
        parsed = parse_value(system, kind, value)
        settings = await _store(interaction).settings.get(guild_id)
        if channel_id == settings.gm_channel_id:  # a modifier waits for rolls here, where players roll none
            raise UserError(
                "This is the GM channel, where players do not roll: set the modifier in the channel where "
                "they play (only you see the answer there)."
            )
        pending = await _store(interaction).modifiers.set(
            guild_id,
            channel_id,
            system,
            member.id if member else None,
            kind,
            parsed,
            uses,
            interaction.user.id,
        )
        whose = f"{_name(member)}'s" if member else "each player's"
        amount = value_text(system, kind, parsed, margin_style(settings))
        rolls = f"{system_label(system)} roll" if uses == 1 else f"{uses} {system_label(system)} rolls"
        said = f"Set `#{pending.id}`: {KIND_WORDS[kind]}{amount} on {whose} next {rolls} in this channel."
        if kind == ASSUMED_SUCCESS:  # RPS-6: taken only by a check that asks to forgo the roll
            checks = "check" if uses == 1 else f"{uses} checks"
            said = (
                f"Set `#{pending.id}`: {whose} next {checks} in this channel may forgo the roll at any Base "
                "for an assumed success, SL 1, with `/rps check forgo:True`. Other rolls leave it waiting."
            )
        await reply(interaction, said, ephemeral=True)

    @gm.command(name="modifiers", description="List the GM modifiers pending in this channel.")
    @gm_only()
    async def modifiers(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = _here(interaction)
        store = _store(interaction)
        pending, settings = await at_once(
            store.modifiers.list(guild_id, channel_id), store.settings.get(guild_id)
        )
        await reply(interaction, embed=modifiers_embed(pending, margin_style(settings)), ephemeral=True)

    @gm.command(name="clear", description="Remove pending GM modifiers in this channel.")
    @app_commands.describe(
        system="Only this system's (default: all).",
        member="Only this player's own modifiers (not the everyone ones).",
    )
    @app_commands.choices(system=SYSTEM_CHOICES)
    @gm_only()
    async def clear(
        self,
        interaction: discord.Interaction[Any],
        system: str | None = None,
        member: discord.Member | None = None,
    ) -> None:
        guild_id, channel_id = _here(interaction)
        count = await _store(interaction).modifiers.clear(
            guild_id, channel_id, system, member.id if member else None
        )
        await reply(
            interaction, cleared_sentence(count, system, _name(member) if member else None), ephemeral=True
        )

    # -- a GM asks for a blind roll ------------------------------------------------------------------------
    @gm.command(
        name="request-roll", description="Ask a player for a blind roll (only the GMs see the result)."
    )
    @app_commands.describe(
        member="The player who should roll.",
        system="The system they roll in.",
        note="What to roll, e.g. Perception (shown to the player).",
    )
    @app_commands.choices(system=SYSTEM_CHOICES)
    @gm_only()
    async def request_roll(
        self,
        interaction: discord.Interaction[Any],
        member: discord.Member,
        system: str,
        note: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        guild_id, channel_id = _here(interaction)
        if member.bot:
            raise UserError("Bots do not roll; ask a player.")
        settings = await _store(interaction).settings.get(guild_id)
        if channel_id == settings.gm_channel_id:  # the player could not see the request, nor roll here
            raise UserError(
                "This is the GM channel, which players cannot read: ask for the roll in the channel where "
                "they play."
            )
        if not await gm_reachable(_store(interaction), settings, guild_id, channel_id):
            # the player's accepted request would make each of their rolls here refused until one is set
            raise UserError(f"Nothing was asked: no GM could see a blind roll here yet; {HOW_TO_REACH_A_GM}.")
        request_id = interaction.id
        await open_request(
            _store(interaction),
            request_id,
            guild_id=guild_id,
            channel_id=channel_id,
            player_id=member.id,
            system=system,
            gm_id=interaction.user.id,
        )
        sent = await reply(
            interaction,
            request_text(interaction.user, member, system, note),
            view=request_view(request_id, member.id, system),
        )
        if sent is not None:  # (None only when Discord did not say which message it was)
            await note_request_message(_store(interaction), request_id, sent)

    # -- GM-1: a GM claims the table, so hidden rolls here reach them by DM -------------------------------
    @gm.command(name="claim", description="Claim this channel as its GM: hidden rolls here reach you by DM.")
    @gm_only()
    async def claim(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = _here(interaction)
        store = _store(interaction)
        # a claim routes this channel's hidden rolls to the GM while they are one: no rights of its own
        added = await store.gm.add_channel_gm(guild_id, channel_id, interaction.user.id, claimed=True)
        settings = await store.settings.get(guild_id)
        where = (
            f"they go to the GM channel <#{settings.gm_channel_id}>, and to you by DM if I cannot post there"
            if settings.gm_channel_id is not None
            else "with no GM channel set, I send them to you by DM (keep DMs from this server open)"
        )
        first = "You have claimed this channel" if added else "You already had this channel"
        await reply(
            interaction,
            f"{first}: for GM and blind rolls here, {where}, while you are a GM of this server.",
            ephemeral=True,
        )

    @gm.command(name="unclaim", description="Give this channel up: no more DMs of its hidden rolls.")
    @gm_only()
    async def unclaim(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = _here(interaction)
        store = _store(interaction)
        # only a claim: an admin's appointment (GM rights and the DMs with them) is the admin's to take back
        if await store.gm.remove_claim(guild_id, channel_id, interaction.user.id):
            text = "You no longer have this channel: its hidden rolls no longer come to you by DM."
            text += await _stranded_note(store, guild_id, channel_id)
        elif await store.gm.is_channel_gm(guild_id, channel_id, interaction.user.id):
            text = (
                "An admin made you GM of this channel, so its hidden rolls reach you as its GM; an admin "
                "can take that back with /setup channel-gm remove."
            )
        else:
            text = "You had not claimed this channel, so there is nothing to give up."
        await reply(interaction, text, ephemeral=True)


async def _stranded_note(store: Store, guild_id: int, channel_id: int) -> str:
    """After a channel lost a GM: a warning when its rolls are hidden by default and no GM is left to see
    them, since each plain roll here is then refused ("No GM can see a hidden roll here yet")."""
    mode = await store.settings.channel_visibility(guild_id, channel_id)
    if mode not in ("gm", "blind") or await gm_reachable(
        store, await store.settings.get(guild_id), guild_id, channel_id
    ):
        return ""
    return (
        f" Rolls here default to visibility {mode}, which no GM can see now, so a roll here without a "
        f"visibility is refused: {HOW_TO_REACH_A_GM}; /setup settings can also give this channel another "
        "visibility."
    )


class ServerSetup(commands.Cog):
    """A server admin's set-up: who is a GM, where hidden rolls go, the server's rule options."""

    setup_group = app_commands.Group(
        name="setup",
        description="Server set-up: GM roles, channel GMs, the GM channel, settings (Manage Server).",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    channel_gm = app_commands.Group(
        name="channel-gm", description="Members made GM of this channel.", parent=setup_group
    )
    roles = app_commands.Group(name="roles", description="The server's GM roles.", parent=setup_group)

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    # -- GM-1: channel GMs and GM roles ---------------------------------------------------------------------
    @channel_gm.command(name="add", description="Make a member GM of this channel.")
    @app_commands.describe(member="The new GM of this channel.")
    @manage_guild_only()
    async def channel_add(self, interaction: discord.Interaction[Any], member: discord.Member) -> None:
        guild_id, channel_id = _here(interaction)
        added = await _store(interaction).gm.add_channel_gm(guild_id, channel_id, member.id)
        text = "is now a GM of this channel" if added else "already was a GM of this channel"
        await reply(interaction, f"{_name(member)} {text}.", ephemeral=True)

    @channel_gm.command(name="remove", description="Stop a member being GM of this channel.")
    @app_commands.describe(member="The channel GM to remove.")
    @manage_guild_only()
    async def channel_remove(self, interaction: discord.Interaction[Any], member: discord.Member) -> None:
        guild_id, channel_id = _here(interaction)
        store = _store(interaction)
        removed = await store.gm.remove_channel_gm(guild_id, channel_id, member.id)
        text = "is no longer a GM of this channel" if removed else "was not a GM of this channel"
        note = await _stranded_note(store, guild_id, channel_id) if removed else ""
        await reply(interaction, f"{_name(member)} {text}.{note}", ephemeral=True)

    @channel_gm.command(name="list", description="Who was made GM of this channel (or claimed it).")
    @manage_guild_only()
    async def channel_list(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = _here(interaction)
        gms = await _store(interaction).gm.list_channel_gms(guild_id, channel_id)
        text = ", ".join(f"<@{g}>" for g in gms) if gms else "No one was made GM of this channel."
        await reply(interaction, embed=info_embed("Channel GMs", text), ephemeral=True)

    @roles.command(name="add", description="Make a role a GM role of this server.")
    @app_commands.describe(role="The role whose members are GMs everywhere in this server.")
    @manage_guild_only()
    async def roles_add(self, interaction: discord.Interaction[Any], role: discord.Role) -> None:
        guild_id, _ = _here(interaction)
        if role.is_default():  # every member would be a GM: they would all see hidden rolls
            raise UserError(
                "@everyone cannot be a GM role: every member would see hidden rolls. Add your GMs' own role."
            )
        store = _store(interaction)

        def add(current: GuildSettings) -> dict[str, Any] | None:
            ids = current.gm_role_ids
            return None if role.id in ids else {"gm_role_ids": [*ids, role.id]}

        # read and written in one unit: two roles added at once both stay
        before, _ = await store.settings.edit(guild_id, add)
        if role.id in before.gm_role_ids:
            await reply(interaction, f"{role.mention} already is a GM role.", ephemeral=True)
            return
        await reply(
            interaction,
            f"{role.mention} is now a GM role; roles named GM or Game Master no longer count unless added.",
            ephemeral=True,
        )

    @roles.command(name="remove", description="Stop a role being a GM role.")
    @app_commands.describe(role="The GM role to remove.")
    @manage_guild_only()
    async def roles_remove(self, interaction: discord.Interaction[Any], role: discord.Role) -> None:
        guild_id, _ = _here(interaction)
        store = _store(interaction)

        def remove(current: GuildSettings) -> dict[str, Any] | None:
            ids = current.gm_role_ids
            return {"gm_role_ids": [r for r in ids if r != role.id]} if role.id in ids else None

        before, settings = await store.settings.edit(guild_id, remove)
        if role.id not in before.gm_role_ids:
            await reply(interaction, f"{role.mention} is not a GM role.", ephemeral=True)
            return
        after = (
            ""
            if settings.gm_role_ids
            else ' No GM roles are left, so roles named "GM" or "Game Master" count again.'
        )
        await reply(interaction, f"{role.mention} is no longer a GM role.{after}", ephemeral=True)

    @roles.command(name="list", description="The server's GM roles.")
    @manage_guild_only()
    async def roles_list(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, _ = _here(interaction)
        ids = (await _store(interaction).settings.get(guild_id)).gm_role_ids
        text = (
            ", ".join(f"<@&{r}>" for r in ids)
            if ids
            else 'None set: roles named "GM" or "Game Master" count.'
        )
        await reply(interaction, embed=info_embed("GM roles", text), ephemeral=True)

    # -- settings -------------------------------------------------------------------------------------------
    @setup_group.command(
        name="settings", description="Show or change the server's settings (no options: show them)."
    )
    @app_commands.describe(
        margins="Show System X margins signed (+3) or as letters (S3).",
        adder_scheme="Which skill adder values cards allow.",
        suit_bonus="Cards: a second bonus card on a matching suit.",
        characteristic_rule="Cards: characteristic suits give their bonus.",
        fumble_flags="Cards: flag fumble chances for the GM.",
        decks="Decks in each channel's shoe.",
        chart="A custom System X roll chart (CSV like data/systemx_roll_chart.csv).",
        default_chart="True: go back to the default roll chart.",
        visibility="This channel's default visibility for rolls.",
        allow_blind="Whether players may make blind rolls themselves.",
    )
    @app_commands.choices(
        margins=[Choice(name="signed (+3)", value="signed"), Choice(name="letters (S3)", value="letters")],
        adder_scheme=[Choice(name=s, value=s) for s in ("low", "high", "middle", "extremes")],
        visibility=[Choice(name=VISIBILITY_WORDS[v], value=v) for v in VISIBILITIES],
    )
    @manage_guild_only()
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        margins: str | None = None,
        adder_scheme: str | None = None,
        suit_bonus: bool | None = None,
        characteristic_rule: bool | None = None,
        fumble_flags: bool | None = None,
        decks: app_commands.Range[int, 1, 8] | None = None,
        chart: discord.Attachment | None = None,
        default_chart: bool | None = None,
        visibility: str | None = None,
        allow_blind: bool | None = None,
    ) -> None:
        guild_id, channel_id = _here(interaction)
        store = _store(interaction)
        if chart is not None and default_chart:
            raise UserError("Give a chart file or default_chart: True, not both.")
        changes: dict[str, Any] = {}
        chart_note = ""
        if chart is not None:
            changes["systemx_chart"] = await self._read_chart(interaction, chart)
            chart_note = "The custom roll chart is valid and now used for System X."
        elif default_chart:
            changes["systemx_chart"] = None
            chart_note = "System X uses the default roll chart again."
        for key, option in (
            ("margin_display", margins),
            ("adder_scheme", adder_scheme),
            ("bj_suit_bonus", suit_bonus),
            ("bj_characteristic_bonus", characteristic_rule),
            ("bj_fumble_flags", fumble_flags),
            ("decks_per_shoe", decks),
            ("allow_blind", allow_blind),
        ):
            if option is not None:
                changes[key] = option
        # validate everything before writing anything
        if visibility is not None and visibility not in VISIBILITIES:
            raise UserError(f"Visibility is one of {', '.join(VISIBILITIES)}, not {visibility!r}.")
        if visibility == "blind" or allow_blind is False:
            # a blind default where players may not roll blind would refuse every plain roll here
            blind_off = not (
                allow_blind if allow_blind is not None else (await store.settings.get(guild_id)).allow_blind
            )
            here = visibility or await store.settings.channel_visibility(guild_id, channel_id)
            if blind_off and here == "blind":
                raise UserError(
                    "Blind rolls would be off while this channel's rolls are blind by default: turn "
                    "allow_blind on, or give this channel another visibility."
                )
            # every channel's default, not only this one's: a blind default elsewhere would refuse there
            others = [
                c for c in await store.settings.channels_with_visibility(guild_id, "blind") if c != channel_id
            ]
            if blind_off and others:
                where = ", ".join(f"<#{c}>" for c in others)
                raise UserError(
                    f"Blind rolls would be off while rolls in {where} are blind by default: give "
                    f"{'that channel' if len(others) == 1 else 'those channels'} another visibility first "
                    "(/setup settings visibility: there)."
                )
        if visibility in ("gm", "blind") and not await gm_reachable(
            store, await store.settings.get(guild_id), guild_id, channel_id
        ):
            # every plain roll here would be refused ("No GM can see a hidden roll here yet")
            raise UserError(
                f"No GM could see this channel's rolls if they were {visibility} by default: first set a GM "
                "channel with /setup gm-channel, make a GM of this channel with /setup channel-gm add, or "
                "have a GM /gm claim it."
            )
        if changes or visibility is not None:  # one transaction: both or neither
            settings, mode = await store.settings.save(
                guild_id, changes, channel_id=channel_id, visibility=visibility
            )
        else:
            settings = await store.settings.get(guild_id)
            mode = await store.settings.channel_visibility(guild_id, channel_id)
        changed = bool(changes) or visibility is not None
        note = chart_note or ("Saved." if changed else "")
        if decks is not None:  # a shoe keeps its decks until it is shuffled (BJ-1)
            note += " Each channel's shoe takes the new number of decks at its next /cards shuffle."
        await reply(
            interaction,
            embed=settings_embed(settings, channel_id=channel_id, channel_visibility=mode, chart_note=note),
            ephemeral=True,
        )

    @setup_group.command(name="gm-channel", description="Where GM and blind rolls go (no options: show it).")
    @app_commands.describe(
        channel="The channel for the GMs' copies of hidden rolls (only GMs and the bot should read it).",
        remove="True: no GM channel (copies go by DM to the GMs of each roll's channel).",
    )
    @manage_guild_only()
    async def gm_channel(
        self,
        interaction: discord.Interaction[Any],
        channel: discord.TextChannel | None = None,
        remove: bool | None = None,
    ) -> None:
        guild_id, _ = _here(interaction)
        store = _store(interaction)
        if channel is not None and remove:
            raise UserError("Give a GM channel or remove: True, not both.")
        if channel is not None:
            if channel.guild.id != guild_id:
                raise UserError("The GM channel must be a channel of this server.")
            readers = player_readers(channel, await store.settings.get(guild_id))
            if readers and readers[0].is_default():
                raise UserError(
                    f"Everyone in this server can read {channel.mention}, so hidden rolls would not be "
                    "hidden there: give it a permission that hides it from @everyone (and lets your GMs and "
                    "me in), then set it again."
                )
            if readers:  # a server that shows its channels to a members' role, not to @everyone
                names = ", ".join(shown_name(role.name) for role in readers)
                raise UserError(
                    f"Members of {names} (no GM role) can read {channel.mention}, so hidden rolls would not "
                    "be hidden there: hide it from them (and let your GMs and me in), then set it again."
                )
            await store.settings.update(guild_id, gm_channel_id=channel.id)
            text = (
                f"GM and blind rolls now go to {channel.mention}, each with a Reveal button; I need View "
                "Channel, Send Messages and Embed Links there."
            )
        elif remove:
            # a channel whose rolls are hidden by default and has no GM of its own would then refuse every
            # plain roll ("No GM can see a hidden roll here yet"), as /setup settings refuses to make one
            hidden = {
                c
                for mode in ("gm", "blind")
                for c in await store.settings.channels_with_visibility(guild_id, mode)
            }
            stranded = sorted([c for c in hidden if not await store.gm.list_channel_gms(guild_id, c)])
            if stranded:
                where = ", ".join(f"<#{c}>" for c in stranded)
                raise UserError(
                    f"Rolls in {where} are hidden by default and only the GM channel could see them: give "
                    f"{'that channel' if len(stranded) == 1 else 'those channels'} a GM first (/gm claim "
                    "there) or another visibility (/setup settings visibility: there). Nothing was changed."
                )
            await store.settings.update(guild_id, gm_channel_id=None)
            text = (
                "No GM channel: GM and blind rolls go by DM to the GMs of each roll's channel (a GM joins "
                "a channel's with /gm claim)."
            )
        else:
            settings = await store.settings.get(guild_id)
            current = settings.gm_channel_id
            text = (
                f"GM and blind rolls go to <#{current}>."
                if current is not None
                else "No GM channel is set: GM and blind rolls go by DM to the GMs of each roll's channel "
                "(a GM joins a channel's with /gm claim)."
            )
            readers = gm_channel_readers(interaction.client, settings)
            if readers:  # opened to players since it was set: post_gm_copies no longer posts there
                names = role_names(readers)
                text = (
                    f"<#{current}> is the GM channel, but {names} can read it now, so I post no hidden roll "
                    "there: they go by DM to the GMs of each roll's channel until you hide it again."
                )
        await reply(interaction, text, ephemeral=True)

    @staticmethod
    async def _read_chart(interaction: discord.Interaction[Any], chart: discord.Attachment) -> str:
        if chart.size > MAX_CHART_FILE:
            raise UserError(f"That chart file is {chart.size:,} bytes; a roll chart is about 2,000.")
        await defer(interaction, ephemeral=True)  # the file comes from Discord's CDN, which may be slow
        data = await chart.read()
        if len(data) > MAX_CHART_FILE:
            raise UserError(f"That chart file is {len(data):,} bytes; a roll chart is about 2,000.")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise UserError("That chart file is not CSV text.") from None
        return parse_chart(text).to_csv()  # ChartError (a RuleError) names the bad line or cell


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(GM(bot))
    await bot.add_cog(ServerSetup(bot))
    bot.add_dynamic_items(*REQUEST_ITEMS)
