"""How a sheet reads: names as written (markdown shown, not applied), and each range said once."""

from __future__ import annotations

from bot.store import Sheet
from bot.ui.sheets import ranges_line, sheet_embeds


def test_a_sheet_shows_its_names_as_typed_and_its_ranges_once() -> None:
    sheet = Sheet(
        guild_id=1, owner_id=2, name="**Pip**", system="rps",
        attributes={"_Agility_": 7}, skills={"Sneak*": {"rating": 3, "attribute": "_Agility_"}},
        bonuses={"~~Luck~~": 1},
    )  # fmt: skip
    [embed] = sheet_embeds(sheet, "Alice")
    assert embed.title == r"\*\*Pip\*\*"
    shown = {field.name: field.value for field in embed.fields}
    assert shown["Attributes"] == r"\_Agility\_ 7"
    assert shown["Skills"] == r"Sneak\* 3 (\_Agility\_)"
    assert shown["Bonuses"] == r"\~\~Luck\~\~ +1"
    # decision dice keep stats only: the range is said once, not once per kind
    assert ranges_line("decision") == "decision dice: stat -5..10, bonus -10..10, maximum wounds 1..100"


def test_long_notes_go_on_in_more_fields_and_lose_nothing() -> None:
    words = " ".join(f"word{i}" for i in range(300))[:2000]
    for notes, joiner in ((words, " "), ("x" * 1500, ""), ("a\n\n" + "\n" * 1100 + "b", "\n")):
        sheet = Sheet(guild_id=1, owner_id=2, name="Pip", system="dn", notes=notes)
        [embed] = sheet_embeds(sheet, "Alice")
        parts = [field for field in embed.fields if field.name.startswith("Notes")]
        assert [p.name for p in parts][:2] == ["Notes", "Notes (continued)"][: len(parts)]
        assert all(p.value and p.value.strip() and len(p.value) <= 1024 for p in parts)
        assert joiner.join(p.value or "" for p in parts).split() == notes.split()
