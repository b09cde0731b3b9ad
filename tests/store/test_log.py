"""The roll log per channel: last N, export as JSON lines or CSV, reveal exactly once."""

from __future__ import annotations

import csv
import io
import json

import pytest

from bot.store import InvalidData, NotFound, RollRecord, Store

G, C, P = 1, 10, 20


def _roll(n: int, visibility: str = "public", guild: int | None = G) -> RollRecord:
    return RollRecord(
        guild_id=guild, channel_id=C, user_id=P, system="rps", command="check", visibility=visibility,  # type: ignore[arg-type]
        inputs={"base": 12, "n": n}, dice=[1, 7], result=f"SL {n}", summary=f"roll {n}",
    )  # fmt: skip


async def test_add_get_last(store: Store) -> None:
    ids = [await store.log.add(_roll(n)) for n in range(5)]
    record = await store.log.get(ids[0])
    assert (record.inputs, record.dice, record.result, record.created_at.tzinfo is not None) == (
        {"base": 12, "n": 0}, [1, 7], "SL 0", True,
    )  # fmt: skip
    assert [r.id for r in await store.log.last(G, C, 3)] == ids[:-4:-1]  # newest first
    assert await store.log.last(G, C + 1, 3) == []
    with pytest.raises(InvalidData, match="1 to 500"):
        await store.log.last(G, C, 0)
    with pytest.raises(NotFound):
        await store.log.get(9999)


async def test_dm_rolls_have_no_guild(store: Store) -> None:
    rid = await store.log.add(_roll(1, guild=None))
    assert (await store.log.get(rid)).guild_id is None
    assert [r.id for r in await store.log.last(None, C)] == [rid]
    assert await store.log.last(G, C) == []


async def test_reveal_is_atomic_and_once(store: Store) -> None:
    rid = await store.log.add(_roll(1, "blind"))
    assert [r.id for r in await store.log.last(G, C, include_hidden=False)] == []
    assert await store.log.mark_revealed(rid, 7) is True
    assert await store.log.mark_revealed(rid, 8) is False
    record = await store.log.get(rid)
    assert record.revealed_by == 7 and record.revealed_at is not None and not record.hidden
    assert [r.id for r in await store.log.last(G, C, include_hidden=False)] == [rid]
    with pytest.raises(NotFound):
        await store.log.mark_revealed(9999, 7)


async def test_export_jsonl_and_csv(store: Store) -> None:
    for n in range(3):
        await store.log.add(_roll(n, "private" if n == 1 else "public"))
    lines = (await store.log.export(G, C)).splitlines()
    assert [json.loads(line)["summary"] for line in lines] == ["roll 0", "roll 1", "roll 2"]
    assert len((await store.log.export(G, C, include_hidden=False)).splitlines()) == 2
    # a roller's own private roll is theirs to export; nobody else's
    assert len((await store.log.export(G, C, include_hidden=False, roller_id=P)).splitlines()) == 3
    assert len((await store.log.export(G, C, include_hidden=False, roller_id=P + 1)).splitlines()) == 2
    rows = list(csv.DictReader(io.StringIO(await store.log.export(G, C, "csv"))))
    assert [r["result"] for r in rows] == ["SL 0", "SL 1", "SL 2"]
    assert json.loads(rows[0]["inputs"]) == {"base": 12, "n": 0} and rows[0]["revealed_by"] == ""
    with pytest.raises(InvalidData, match="jsonl or csv"):
        await store.log.export(G, C, "xml")  # type: ignore[arg-type]


async def test_csv_cells_never_run_as_spreadsheet_formulas(store: Store) -> None:
    # a player's skill named like a formula reaches the summary; a spreadsheet must show it, not run it
    planted = ['=HYPERLINK("http://x","a"): S1, success', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]
    for n, summary in enumerate(planted):
        await store.log.add(_roll(n).model_copy(update={"summary": summary, "result": "-1 failure"}))
    rows = list(csv.DictReader(io.StringIO(await store.log.export(G, C, "csv"), newline="")))
    assert [r["summary"] for r in rows] == ["'" + s for s in planted]
    assert {r["result"] for r in rows} == {"'-1 failure"}
    assert rows[0]["id"].isdigit() and rows[0]["user_id"] == str(P)  # numbers stay numbers
    # the JSON lines export keeps the text as it was: it is data, not a sheet
    lines = (await store.log.export(G, C)).splitlines()
    assert [json.loads(line)["summary"] for line in lines] == planted


async def test_bad_records_are_refused(store: Store) -> None:
    with pytest.raises(InvalidData, match="too big"):
        await store.log.add(_roll(1).model_copy(update={"inputs": {"x": "y" * 20_000}}))
    with pytest.raises(InvalidData, match="plain JSON"):
        await store.log.add(_roll(1).model_copy(update={"dice": [object()]}))
    with pytest.raises(InvalidData, match="visibility"):
        await store.log.add(_roll(1).model_copy(update={"visibility": "loud"}))
    assert await store.log.last(G, C) == []


async def test_hidden_finds_unrevealed_rolls_of_a_command_in_the_lookback(store: Store) -> None:
    ids = [await store.log.add(_roll(n, "blind" if n % 3 == 0 else "public")) for n in range(9)]
    await store.log.mark_revealed(ids[3], 99)
    found = await store.log.hidden(G, C, command="check", lookback=5)  # the last five: rolls 4..8
    assert [r.id for r in found] == [ids[6]]
    assert [r.id for r in await store.log.hidden(G, C, command="check", lookback=9)] == [ids[6], ids[0]]
    assert await store.log.hidden(G, C, command="other", lookback=9) == []


async def test_item14_a_page_further_back_and_the_count(store: Store) -> None:
    ids = [await store.log.add(_roll(n)) for n in range(7)]
    await store.log.add(_roll(99, guild=None))  # the same channel id in a DM: another log
    assert await store.log.count(G, C) == 7 and await store.log.count(None, C) == 1
    assert await store.log.count(G, C + 1) == 0
    assert [r.id for r in await store.log.last(G, C, 3, skip=3)] == ids[3:0:-1]
    assert [r.id for r in await store.log.last(G, C, 3, skip=6)] == ids[:1]
    assert await store.log.last(G, C, 3, skip=7) == []
    with pytest.raises(InvalidData, match="0 or more"):
        await store.log.last(G, C, 3, skip=-1)
