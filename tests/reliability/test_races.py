"""Races through the real bot process (issue 6): many players clicking and rolling at the same moment.

The bot runs as a subprocess (`python -m bot`, SubprocessBot) and every interaction of a burst is
dispatched at once. Afterwards the database (read through its own connection) must be consistent:
a GM modifier used exactly as often as it allows, one supply step per logged roll and no step without
one, and every interaction answered (a result, or an ephemeral "try again").
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.core.decision import SupplyDie
from bot.local.fake.harness import Answer, SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.store import Holder, Store
from tests.reliability.conftest import rows

pytestmark = pytest.mark.slow

BURST = 50


async def launch(fake: FakeDiscord, tmp_path: Path) -> SubprocessBot:
    return await SubprocessBot.launch(fake, tmp_path / "bot.db", log_path=tmp_path / "bot.log")


async def stop(sub: SubprocessBot, fake: FakeDiscord) -> None:
    await sub.stop()
    assert sub.error_lines() == [], "\n".join(sub.error_lines())
    assert fake.violations == [], fake.violations


def own_text(answer: Answer) -> str:
    """The text of this interaction's own messages (a burst interleaves everyone's messages)."""
    return "\n".join(m.text() for m in answer.messages if m.interaction_id == answer.record.id)


def shown(answers: list[Answer]) -> tuple[list[Answer], list[Answer]]:
    """(answers with a visible result, answers that were an ephemeral sentence)."""
    results, refusals = [], []
    for answer in answers:
        if answer.ephemeral:
            refusals.append(answer)
        else:
            assert answer.original.embeds, own_text(answer)
            results.append(answer)
    return results, refusals


# -- GM-3: one pending modifier, 50 rolls ------------------------------------------------------------------
async def test_fifty_rolls_take_a_single_use_modifier_exactly_once(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:  # GM-3
    sub = await launch(fake, tmp_path)
    try:
        async with await Store.open(tmp_path / "bot.db") as store:
            await store.modifiers.set(
                world.guild.id, world.general.id, "decision", world.alice.id, "modifier", 3, 1, world.gm.id
            )
        answers = await asyncio.gather(
            *(
                sub.slash(
                    world.guild, world.general, world.alice, "decision roll", {"stat": 1, "target_number": 10}
                )
                for _ in range(BURST)
            )
        )
    finally:
        await stop(sub, fake)
    results, refusals = shown(list(answers))
    assert len(results) + len(refusals) == BURST
    with_modifier = [a for a in results if "GM modifier" in own_text(a)]
    assert len(with_modifier) == 1, [own_text(a) for a in with_modifier]
    logged = [r for r in rows(tmp_path / "bot.db", "rolls") if r["command"] == "decision roll"]
    assert len(logged) == len(results)
    assert sum(1 for r in logged if json.loads(r["inputs"])["gm_modifiers"]) == 1
    [modifier] = rows(tmp_path / "bot.db", "pending_modifiers") or [{"uses_left": 0}]
    assert modifier["uses_left"] == 0


async def test_fifty_rolls_of_everyone_modifier_take_one_use_per_player(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:  # GM-3
    sub = await launch(fake, tmp_path)
    players = [world.alice, world.bob, world.carol]
    try:
        async with await Store.open(tmp_path / "bot.db") as store:
            await store.modifiers.set(
                world.guild.id, world.general.id, "decision", None, "modifier", -2, 2, world.gm.id
            )
        answers = await asyncio.gather(
            *(
                sub.slash(
                    world.guild, world.general, players[i % 3], "decision roll", {"stat": 0, "target": 6}
                )
                for i in range(BURST)
            )
        )
    finally:
        await stop(sub, fake)
    results, _ = shown(list(answers))
    logged = [r for r in rows(tmp_path / "bot.db", "rolls") if r["command"] == "decision roll"]
    assert len(logged) == len(results)
    took: dict[int, int] = {}
    for row in logged:
        if json.loads(row["inputs"])["gm_modifiers"]:
            took[row["user_id"]] = took.get(row["user_id"], 0) + 1
    assert took == {p.id: 2 for p in players}


# -- DD-7: one supply die, 50 rolls --------------------------------------------------------------------------
def supply_chain_problems(
    logged: list[dict[str, Any]], start: int, final: int, *, complete: bool = True
) -> list[str]:
    """DD-7 bookkeeping: every logged roll stepped at most once, and the steps form the chain start -> final.

    Rolls are logged after the die is written, so their log order may differ from the order they were
    applied; the check is order-free: the step rolls must be exactly one per size from ``start`` down to
    ``final``, and every other roll must have been made on a size of that chain (not on an empty die).
    ``complete=False`` allows steps missing from the log (never a step twice or off the chain).
    """
    ladder = [d.sides for d in SupplyDie]
    chain = ladder[ladder.index(start) : ladder.index(final) + 1]
    steps, stays = [], []
    for row in logged:
        die = json.loads(row["inputs"])["die"]
        [value] = json.loads(row["dice"])
        (steps if value <= 3 else stays).append(die)
    problems = []
    if complete and sorted(steps, reverse=True) != chain[:-1]:
        problems.append(
            f"steps {sorted(steps, reverse=True)} do not take the die {start} -> {final} ({chain})"
        )
    if not complete and (len(set(steps)) != len(steps) or not set(steps) <= set(chain[:-1])):
        problems.append(f"steps {sorted(steps, reverse=True)} repeat a size or leave the chain {chain}")
    if any(die not in chain or die == 0 for die in stays):
        problems.append(f"rolls on sizes outside the chain: {stays}")
    return problems


async def test_fifty_supply_rolls_step_one_die_once_per_logged_roll(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:  # DD-7
    sub = await launch(fake, tmp_path)
    try:
        async with await Store.open(tmp_path / "bot.db") as store:
            await store.supply.set(world.guild.id, world.alice.id, Holder("Alice", own=True), "Rations", 12)
        answers = await asyncio.gather(
            *(
                sub.slash(world.guild, world.general, world.alice, "supply roll", {"item": "Rations"})
                for _ in range(BURST)
            )
        )
    finally:
        await stop(sub, fake)
    results, refusals = shown(list(answers))
    assert len(results) + len(refusals) == BURST
    logged = [r for r in rows(tmp_path / "bot.db", "rolls") if r["command"] == "supply roll"]
    assert len(logged) == len(results)
    [die] = rows(tmp_path / "bot.db", "supply_dice")
    assert supply_chain_problems(logged, 12, die["die"]) == []
    for refusal in refusals:  # an empty die or a lost race, said in one sentence
        assert "empty" in refusal.content or "roll again" in refusal.content, refusal.content


# -- BJ-1, BJ-4: one hand, 50 Hit clicks -----------------------------------------------------------------
async def test_fifty_hit_clicks_on_one_hand_move_it_once_per_answer_and_conserve_the_cards(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:  # BJ-1, BJ-4, GM-4
    sub = await launch(fake, tmp_path)
    try:
        posted = await sub.slash(
            world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "level": 3}
        )
        hand_message = posted.original
        clicks = await asyncio.gather(*(sub.click(hand_message, "Hit", world.alice) for _ in range(BURST)))
        async with await Store.open(tmp_path / "bot.db") as store:
            [hand] = [h for h in await _hands(store, world)]
            shoe, _ = await store.cards.get_shoe(world.guild.id, world.general.id)
            in_play = [
                c
                for h in await store.cards.open_hands(world.guild.id, world.general.id)
                for c in h.card_objects
            ]
    finally:
        await stop(sub, fake)
    moved = [c for c in clicks if not c.ephemeral]
    refused = [c for c in clicks if c.ephemeral]
    assert len(moved) + len(refused) == BURST
    assert len(moved) >= 1
    assert hand.version == 1 + len(moved)  # one stored move per answered click, none lost, none doubled
    assert shoe.is_conserved(in_play), "cards were lost or duplicated"
    for refusal in refused:
        assert refusal.content, own_text(refusal)


async def _hands(store: Store, world: World) -> list[Any]:
    open_hands = await store.cards.open_hands(world.guild.id, world.general.id)
    finished = await store.cards.recent_hands(world.guild.id, world.general.id, 5)
    return [*open_hands, *finished]


# -- RPS-8: one sustained pool, 20 checks ------------------------------------------------------------------
POOL_CLICKS = 20


async def test_twenty_checks_on_one_pool_keep_it_equal_to_the_sum_of_its_logged_checks(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:  # RPS-8, GM-3, GM-4
    sub = await launch(fake, tmp_path)
    try:
        started = await sub.slash(
            world.guild,
            world.general,
            world.gm,
            "rps sustained start",
            {"name": "Siege", "goal": 200, "minutes": 10, "member": world.alice, "base": 12},
        )
        async with await Store.open(tmp_path / "bot.db") as store:
            # one GM modifier (+3 to the Base) for the pool's owner: exactly one counted check may carry it
            await store.modifiers.set(
                world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", 3, 1, world.gm.id
            )
        clicks = await asyncio.gather(
            *(sub.click(started.original, "Roll next check", world.alice) for _ in range(POOL_CLICKS))
        )
        async with await Store.open(tmp_path / "bot.db") as store:
            [pool] = await store.pools.list(world.guild.id, world.general.id, running_only=False)
    finally:
        await stop(sub, fake)
    counted = [c for c in clicks if not c.ephemeral]
    assert pool.checks_made == len(pool.checks) == len(counted)
    assert pool.pool == sum(check.delta for check in pool.checks)  # RPS-8: the pool is its checks' sum
    logged = [r for r in rows(tmp_path / "bot.db", "rolls") if r["command"] == "rps sustained roll"]
    assert len(logged) == pool.checks_made
    assert sorted(json.loads(r["inputs"])["delta"] for r in logged) == sorted(c.delta for c in pool.checks)
    [modifier] = rows(tmp_path / "bot.db", "pending_modifiers") or [{"uses_left": 0}]
    with_modifier = [r for r in logged if json.loads(r["inputs"])["base"] == 15]
    assert (modifier["uses_left"], len(with_modifier)) in ((0, 1), (1, 0)), (
        "a GM modifier was used up by a check that did not count"
    )
