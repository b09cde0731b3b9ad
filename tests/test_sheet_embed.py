"""How a sheet reads: names as written (markdown shown, not applied), and each range said once."""

from __future__ import annotations

from bot.store import Sheet
from bot.ui.sheets import ranges_line, sheet_embed


def test_a_sheet_shows_its_names_as_typed_and_its_ranges_once() -> None:
    sheet = Sheet(
        guild_id=1, owner_id=2, name="**Pip**", system="rps",
        attributes={"_Agility_": 7}, skills={"Sneak*": {"rating": 3, "attribute": "_Agility_"}},
        bonuses={"~~Luck~~": 1},
    )  # fmt: skip
    embed = sheet_embed(sheet, "Alice")
    assert embed.title == r"\*\*Pip\*\*"
    shown = {field.name: field.value for field in embed.fields}
    assert shown["Attributes"] == r"\_Agility\_ 7"
    assert shown["Skills"] == r"Sneak\* 3 (\_Agility\_)"
    assert shown["Bonuses"] == r"\~\~Luck\~\~ +1"
    # decision dice keep stats only: the range is said once, not once per kind
    assert ranges_line("decision") == "decision dice: stat -5..10, bonus -10..10, maximum wounds 1..100"
