"""`/sheet`: character sheets per guild and player (in DMs: the player's own DM sheets, guild key 0).

Thin: options in, the store validates (ranges per system, names, sizes) and refuses with one sentence,
`bot.ui.sheets` renders. Import downloads at most 300 KB (`MAX_SHEET_FILE`: any sheet's export fits), reads it
in a worker process and stores nothing unless it is a valid sheet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.store import NotFound, Sheet, Store
from bot.store.models import MAX_NOTES, SYSTEMS, name_key
from bot.store.sheets import parent_problems, parse_sheet_json
from bot.ui import pages
from bot.ui.embeds import shown_name
from bot.ui.reply import UserError, defer, reply, reply_in_parts
from bot.ui.rolls import guild_key, sheets_hidden
from bot.ui.sheets import (
    LIST_TITLE,
    MAX_SHEET_FILE,
    export_file,
    sheet_embeds,
    sheet_list_embed,
    system_label,
)

if TYPE_CHECKING:
    from bot.client import TabletopBot

Choice = app_commands.Choice
DM_SHEETS = "In DMs you can see only your own sheets; ask in the server where you play together."
SYSTEM_CHOICES = [Choice(name=system_label(s), value=s) for s in SYSTEMS]
Section = Literal["attribute", "skill", "bonus"]
SECTION_FIELDS: dict[str, str] = {"attribute": "attributes", "skill": "skills", "bonus": "bonuses"}
# what a stored bonus does in each system's rolls (SX-6, BJ-9), said when one is set
BONUS_USE: dict[str, str] = {
    "sysx": ": it adds to the Skill Value of checks of a skill or attribute of that name",
    "cards": ": it counts when a cards task names that characteristic",
    "dn": " (kept on the sheet: Difficulty Number rolls do not use bonuses)",
    "rps": " (kept on the sheet: RPS rolls do not use bonuses)",
    "decision": " (kept on the sheet: decision-dice rolls do not use bonuses)",
}
# Discord-side bounds: the widest range any system allows; the store then applies the sheet's own system.
Attribute = app_commands.Range[int, -5, 30]
Rating = app_commands.Range[int, 0, 30]
Bonus = app_commands.Range[int, -10, 10]
WoundCount = app_commands.Range[int, 0, 100]
NameText = app_commands.Range[str, 1, 64]
SHEETS_PAGE = 15  # sheets a page of /sheet list shows


def _store(interaction: discord.Interaction[Any]) -> Store:
    store: Store = interaction.client.store
    return store


def _who(user: discord.abc.User) -> str:
    return shown_name(user.display_name)


def _split_names(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def _matching(names: list[str], current: str) -> list[Choice[str]]:
    key = name_key(current)
    hits = [n for n in names if key in name_key(n)]
    hits.sort(key=lambda n: (not name_key(n).startswith(key), name_key(n)))
    return [Choice(name=n[:100], value=n[:100]) for n in hits[:25]]


async def _namespace_sheet(interaction: discord.Interaction[Any]) -> Sheet | None:
    """The sheet named in the (partly typed) ``name`` option, for autocompleting its entries."""
    name = getattr(interaction.namespace, "name", None)
    if not isinstance(name, str) or not name.strip():
        return None
    found = await _store(interaction).sheets.list(guild_key(interaction), interaction.user.id)
    return next((s for s in found if name_key(s.name) == name_key(name)), None)


async def sheet_names(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """The user's sheet names (or those of the ``member`` option, for show/list)."""
    member = getattr(interaction.namespace, "member", None)
    owner = member.id if isinstance(member, discord.abc.User) else interaction.user.id
    if sheets_hidden(interaction, owner):
        return []
    names = await _store(interaction).sheets.autocomplete_names(guild_key(interaction), owner, current)
    return [Choice(name=n[:100], value=n[:100]) for n in names]


async def sheet_attributes(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """Attributes of the sheet named in ``name``."""
    sheet = await _namespace_sheet(interaction)
    return _matching(list(sheet.attributes) if sheet else [], current)


async def sheet_skills(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """Skills of the sheet named in ``name``."""
    sheet = await _namespace_sheet(interaction)
    return _matching(list(sheet.skills) if sheet else [], current)


async def sheet_bonuses(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """Bonuses of the sheet named in ``name``."""
    sheet = await _namespace_sheet(interaction)
    return _matching(list(sheet.bonuses) if sheet else [], current)


async def section_keys(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    """Entries of the ``section`` (attribute, skill or bonus) of the sheet named in ``name``."""
    sheet = await _namespace_sheet(interaction)
    section = getattr(interaction.namespace, "section", None)
    if sheet is None:
        return []
    if section in SECTION_FIELDS:
        entries: dict[str, Any] = getattr(sheet, SECTION_FIELDS[section])
        return _matching(list(entries), current)
    return _matching([*sheet.attributes, *sheet.skills, *sheet.bonuses], current)


async def sheets_page(
    interaction: discord.Interaction[Any], args: tuple[int, ...], number: int, owner_name: str | None = None
) -> pages.Page:
    """Page ``number`` of the sheets of the player ``args[0]``, reloaded from the store."""
    owner_id = args[0]
    if sheets_hidden(interaction, owner_id):
        raise UserError(DM_SHEETS)
    sheets = await _store(interaction).sheets.list(guild_key(interaction), owner_id)
    last = pages.page_count(len(sheets), SHEETS_PAGE)
    number = pages.clamp(number, last)
    name = owner_name or _listed_name(interaction, owner_id)
    return pages.Page(sheet_list_embed(pages.window(sheets, number, SHEETS_PAGE), name), number, last)


def _listed_name(interaction: discord.Interaction[Any], owner_id: int) -> str:
    """The owner's name on a page turned by a click: the clicker's own, a member's, or the listing's."""
    if owner_id == interaction.user.id:
        return _who(interaction.user)
    member = interaction.guild.get_member(owner_id) if interaction.guild is not None else None
    if member is not None:
        return _who(member)
    message = interaction.message
    title = message.embeds[0].title if message is not None and message.embeds else None
    return title.removeprefix(LIST_TITLE) if title and title.startswith(LIST_TITLE) else "this player"


class Sheets(commands.Cog):
    """Create, show, edit, import and export character sheets."""

    sheet = app_commands.Group(
        name="sheet",
        description="Your character sheets: create, show, edit, import and export.",
        allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True),
    )

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    async def _answer(self, interaction: discord.Interaction[Any], sheet: Sheet, text: str) -> None:
        await reply_in_parts(interaction, text, sheet_embeds(sheet, _who(interaction.user)), ephemeral=True)

    # -- making and choosing ------------------------------------------------------------------------------
    @sheet.command(name="create", description="Make a new character sheet for one system.")
    @app_commands.describe(name="The character's name (1 to 64 characters).", system="The rule system.")
    @app_commands.choices(system=SYSTEM_CHOICES)
    async def create(self, interaction: discord.Interaction[Any], name: NameText, system: str) -> None:
        sheet = await self.store.sheets.create(
            {
                "name": name,
                "system": system,
                "guild_id": guild_key(interaction),
                "owner_id": interaction.user.id,
            }
        )
        active = (
            " It is your active sheet for that system." if sheet.active else " Use /sheet use to play it."
        )
        await self._answer(interaction, sheet, f"Created {shown_name(sheet.name)}.{active}")

    @sheet.command(name="show", description="Show a sheet (yours, or another player's).")
    @app_commands.describe(
        name="Which sheet (default: your only or active one).",
        member="Whose sheet (default: yours).",
        public="Show it to the channel rather than only to you.",
    )
    @app_commands.autocomplete(name=sheet_names)
    async def show(
        self,
        interaction: discord.Interaction[Any],
        name: NameText | None = None,
        member: discord.User | None = None,
        public: bool = False,
    ) -> None:
        owner = member or interaction.user
        if sheets_hidden(interaction, owner.id):
            raise UserError(DM_SHEETS)
        guild = guild_key(interaction)
        if name is not None:
            try:
                sheet = await self.store.sheets.get(guild, owner.id, name)
            except NotFound:
                if owner.id == interaction.user.id:
                    raise
                raise UserError(f"{_who(owner)} has no sheet named {name.strip()!r}.") from None
        else:
            sheet = await self._default_sheet(guild, owner)
        await reply_in_parts(interaction, None, sheet_embeds(sheet, _who(owner)), ephemeral=not public)

    async def _default_sheet(self, guild: int, owner: discord.abc.User, doing: str = "show") -> Sheet:
        sheets = await self.store.sheets.list(guild, owner.id)
        active = [s for s in sheets if s.active]
        if len(sheets) == 1:
            return sheets[0]
        if len(active) == 1:
            return active[0]
        if not sheets:
            raise UserError(f"{_who(owner)} has no sheets here yet; /sheet create makes one.")
        names = ", ".join(shown_name(s.name) for s in sheets[:10])
        raise UserError(f"Name the sheet to {doing}; there are several: {names}.")

    @sheet.command(name="list", description="List your sheets (or another player's) and which are active.")
    @app_commands.describe(member="Whose sheets (default: yours).")
    async def list_(self, interaction: discord.Interaction[Any], member: discord.User | None = None) -> None:
        owner = member or interaction.user
        args = (owner.id,)
        page = await sheets_page(interaction, args, 1, owner_name=_who(owner))
        embed, view = pages.present(page, "sheets", args, interaction.user.id)
        await reply(interaction, embed=embed, view=view, ephemeral=True)

    @sheet.command(name="use", description="Make a sheet the active one for its system.")
    @app_commands.describe(name="The sheet to play.")
    @app_commands.autocomplete(name=sheet_names)
    async def use(self, interaction: discord.Interaction[Any], name: NameText) -> None:
        current = await self.store.sheets.get(guild_key(interaction), interaction.user.id, name)
        if current.active:
            label = system_label(current.system)
            await self._answer(
                interaction, current, f"{shown_name(current.name)} already is your active {label} sheet."
            )
            return
        sheet = await self.store.sheets.use(guild_key(interaction), interaction.user.id, name)
        await self._answer(
            interaction,
            sheet,
            f"{shown_name(sheet.name)} is now your active {system_label(sheet.system)} sheet.",
        )

    # -- editing ------------------------------------------------------------------------------------------
    @sheet.command(name="set-attribute", description="Set an attribute, characteristic or stat.")
    @app_commands.describe(name="The sheet.", attribute="Its name, e.g. Strength.", value="Its value.")
    @app_commands.autocomplete(name=sheet_names, attribute=sheet_attributes)
    async def set_attribute(
        self, interaction: discord.Interaction[Any], name: NameText, attribute: NameText, value: Attribute
    ) -> None:
        sheet = await self.store.sheets.set_attribute(
            guild_key(interaction), interaction.user.id, name, attribute, value
        )
        await self._answer(interaction, sheet, f"{shown_name(attribute.strip())} is now {value}.")

    @sheet.command(name="set-skill", description="Set a skill with its parent attribute and alternates.")
    @app_commands.describe(
        name="The sheet.",
        skill="The skill's name.",
        rating="Its rating.",
        parent="The attribute its rolls add (default: the one it has; System X and RPS need one).",
        alternates="Other attributes a check may use instead, separated by commas (a dash clears them).",
    )
    @app_commands.autocomplete(name=sheet_names, skill=sheet_skills, parent=sheet_attributes)
    async def set_skill(
        self,
        interaction: discord.Interaction[Any],
        name: NameText,
        skill: NameText,
        rating: Rating,
        parent: NameText | None = None,
        alternates: app_commands.Range[str, 1, 700] | None = None,
    ) -> None:
        sheet = await self.store.sheets.set_skill(
            guild_key(interaction),
            interaction.user.id,
            name,
            skill,
            rating,
            parent,
            None if alternates is None else _split_names("" if alternates.strip() == "-" else alternates),
        )
        await self._answer(interaction, sheet, f"{shown_name(skill.strip())} is now {rating}.")

    @sheet.command(
        name="set-bonus",
        description="Set a bonus: System X adds it to the skill or attribute named; cards, a trait's.",
    )
    @app_commands.describe(name="The sheet.", bonus="The bonus's name.", value="Its value.")
    @app_commands.autocomplete(name=sheet_names, bonus=sheet_bonuses)
    async def set_bonus(
        self, interaction: discord.Interaction[Any], name: NameText, bonus: NameText, value: Bonus
    ) -> None:
        sheet = await self.store.sheets.set_bonus(
            guild_key(interaction), interaction.user.id, name, bonus, value
        )
        named = shown_name(bonus.strip())
        await self._answer(interaction, sheet, f"Bonus {named} is now {value:+d}{BONUS_USE[sheet.system]}.")

    @sheet.command(name="wounds", description="Set current wounds (and the maximum); no values clears them.")
    @app_commands.describe(name="The sheet.", current="Current wounds.", maximum="Maximum wounds.")
    @app_commands.autocomplete(name=sheet_names)
    async def wounds(
        self,
        interaction: discord.Interaction[Any],
        name: NameText,
        current: WoundCount | None = None,
        maximum: app_commands.Range[int, 1, 100] | None = None,
    ) -> None:
        sheet = await self.store.sheets.set_wounds(
            guild_key(interaction), interaction.user.id, name, current, maximum
        )
        text = (
            f"Wounds are now {sheet.wounds.current} / {sheet.wounds.maximum}."
            if sheet.wounds
            else "Wounds cleared."
        )
        await self._answer(interaction, sheet, text)

    @sheet.command(name="notes", description="Replace the sheet's free notes.")
    @app_commands.describe(name="The sheet.", notes="The notes (empty them with a single dash).")
    @app_commands.autocomplete(name=sheet_names)
    async def notes(
        self,
        interaction: discord.Interaction[Any],
        name: NameText,
        notes: app_commands.Range[str, 1, MAX_NOTES],
    ) -> None:
        text = "" if notes.strip() == "-" else notes
        sheet = await self.store.sheets.set_notes(guild_key(interaction), interaction.user.id, name, text)
        await self._answer(interaction, sheet, "Notes saved." if text else "Notes cleared.")

    @sheet.command(name="remove", description="Remove an attribute, skill or bonus from a sheet.")
    @app_commands.describe(name="The sheet.", section="What kind of entry.", key="The entry's name.")
    @app_commands.autocomplete(name=sheet_names, key=section_keys)
    async def remove(
        self, interaction: discord.Interaction[Any], name: NameText, section: Section, key: NameText
    ) -> None:
        sheet = await self.store.sheets.remove(
            guild_key(interaction), interaction.user.id, name, section, key
        )
        await self._answer(interaction, sheet, f"Removed the {section} {key.strip()}.")

    @sheet.command(name="delete", description="Delete a sheet for good (needs confirm: True).")
    @app_commands.describe(name="The sheet.", confirm="True to really delete it; it cannot be undone.")
    @app_commands.autocomplete(name=sheet_names)
    async def delete(
        self, interaction: discord.Interaction[Any], name: NameText, confirm: bool = False
    ) -> None:
        guild, owner = guild_key(interaction), interaction.user.id
        sheet = await self.store.sheets.get(guild, owner, name)
        if not confirm:
            raise UserError(
                "Nothing deleted: run /sheet delete again with confirm: True to delete "
                f"{shown_name(sheet.name)}."
            )
        await self.store.sheets.delete(guild, owner, sheet.name)
        await reply(interaction, f"Deleted the sheet {shown_name(sheet.name)}.", ephemeral=True)

    # -- files --------------------------------------------------------------------------------------------
    @sheet.command(name="export", description="Get a sheet as a JSON file that /sheet import reads back.")
    @app_commands.describe(name="Which sheet (default: your only or active one).")
    @app_commands.autocomplete(name=sheet_names)
    async def export(self, interaction: discord.Interaction[Any], name: NameText | None = None) -> None:
        guild = guild_key(interaction)
        if name is not None:
            sheet = await self.store.sheets.get(guild, interaction.user.id, name)
        else:
            sheet = await self._default_sheet(guild, interaction.user, "export")
        await reply(
            interaction,
            f"{shown_name(sheet.name)} ({system_label(sheet.system)}); /sheet import reads this file back.",
            files=[export_file(sheet)],
            ephemeral=True,
        )

    @sheet.command(name="import", description="Make a sheet from an exported JSON file.")
    @app_commands.describe(
        file="A sheet exported with /sheet export (JSON, at most 300 KB).",
        replace="Overwrite your sheet of the same name.",
    )
    async def import_(
        self, interaction: discord.Interaction[Any], file: discord.Attachment, replace: bool = False
    ) -> None:
        if file.size > MAX_SHEET_FILE:
            raise UserError(f"That file is {file.size:,} bytes; a sheet file is at most {MAX_SHEET_FILE:,}.")
        await defer(interaction, ephemeral=True)  # the file comes from Discord's CDN, which may be slow
        data = await file.read()
        if len(data) > MAX_SHEET_FILE:  # do not trust the declared size
            raise UserError(f"That file is {len(data):,} bytes; a sheet file is at most {MAX_SHEET_FILE:,}.")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise UserError("That file is not a character sheet: it is not JSON text.") from None
        # reading a file of up to MAX_SHEET_FILE (a hostile one full of tiny values the slowest) holds the GIL
        # for tens of milliseconds: in a worker process, never on the event loop
        document = await self.bot.chart_workers.run(parse_sheet_json, text)
        sheet = await self.store.sheets.import_document(
            guild_key(interaction), interaction.user.id, document, replace
        )
        text = f"Imported {shown_name(sheet.name)} ({system_label(sheet.system)})."
        problems = parent_problems(sheet)
        if problems:  # a file may hold what /sheet set-skill refuses: say so now, not at the roll
            text += f" Before rolling with it: {problems[0]}"
        await self._answer(interaction, sheet, text)


async def setup(bot: TabletopBot) -> None:
    pages.register(bot, "sheets", sheets_page)
    await bot.add_cog(Sheets(bot))
