"""A sustained action's Success Pool in play (RPS-8): one check rolled, added to the pool and published.

`roll_pool_check` is what both ``/rps sustained roll`` and the pool message's button do. The check, its log
row and the GM modifiers it uses are one transaction with a version check on the pool: when another check
lands first, this one is applied once more to the fresh pool, and refused if the action has ended since.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.core import rps
from bot.store import AppliedModifier, Conflict, Pool, PoolCheck, Store
from bot.ui.embeds import shown_name
from bot.ui.odds import add_odds, core_pool, rps_line, sustained_line
from bot.ui.reply import UserError
from bot.ui.rolls import publish, roll_record, take_modifiers
from bot.ui.rps import (
    FORGONE_ONLY,
    BaseBuild,
    check_details,
    ended_sentence,
    gm_parts,
    hidden_pool_checks,
    pool_compact,
    pool_insider,
    pool_progress_fields,
    roll_check,
    stored_spec,
)
from bot.ui.visibility import Mode

SYSTEM = "rps"


async def roll_pool_check(
    interaction: discord.Interaction[Any], store: Store, pool: Pool, mode: Mode
) -> tuple[Pool, bool]:
    """One check of a sustained action: GM modifiers, 2d10, core advance, atomic store update, output.

    Returns the pool after the check, and whether its message must keep hiding what a hidden check did
    (what the pool's message may show).
    """
    # an earlier hidden check not revealed yet: whoever sees this check must not learn the pool's total,
    # which would give that check's result away
    hidden = await hidden_pool_checks(store, pool)
    veiled = bool(hidden) and (mode == "public" or not await pool_insider(interaction, store, pool, hidden))
    applied = await take_modifiers(interaction, store, SYSTEM, user_id=pool.owner_id, waiting=FORGONE_ONLY)
    gm = gm_parts(applied)
    parts = [part.model_dump() for part in pool.base_parts]
    spec = stored_spec(pool.base, pool.skill or "sustained check", parts)
    build = spec.build(gm)
    check = roll_check(interaction.client.rng, build.base)
    assert check.dice is not None
    dice = list(check.dice)
    for attempt in range(2):
        running = core_pool(pool)
        assert running is not None  # checked running before the first try, and after a conflict
        step = rps.advance(running, check)
        change = step.last_change if step.last_change is not None else 0
        logged = PoolCheck(
            sl=check.sl,
            delta=change,
            fumble=check.fumble,
            dice=dice,
            by_user_id=interaction.user.id,
        )
        # the pool's state after this check, known before the write (it is refused unless pool is current)
        after = pool.pool + change
        predicted = pool.model_copy(
            update={
                "pool": after,
                "checks_made": pool.checks_made + 1,
                "checks": (*pool.checks, logged),
                "state": step.state.value,
            }
        )
        details = await _details(interaction, predicted, build, check, applied, change, veiled)
        record = roll_record(
            interaction,
            mode=mode,
            system=SYSTEM,
            command="rps sustained roll",
            inputs={
                "kind": "pool",
                "pool_id": pool.id,
                "pool": pool.name,
                "owner_id": pool.owner_id,
                "base": build.base,
                "sl": check.sl,
                "delta": change,
                "state": step.state.value,
            },
            dice=dice,
            result=(
                f"SL {check.sl}, pool {change:+d} (total hidden)"
                if veiled
                else f"SL {check.sl}, pool {after}/{pool.goal} ({step.state.value})"
            ),
            summary=(
                f"Sustained {shown_name(pool.name)}: SL {check.sl}, pool {change:+d}"
                if veiled
                else f"Sustained {shown_name(pool.name)}: SL {check.sl}, pool {after}/{pool.goal}"
            ),
            details=details,
        )
        try:
            # the check, its log row and the GM modifier uses are one transaction (RPS-8, GM-3)
            updated, log_id = await store.pools.add_check_logged(
                pool.id,
                pool.checks_made,
                logged,
                step.state.value,
                record,
                store.modifiers.ticket(interaction.id),
            )
            break
        except Conflict:
            # another check landed first: re-read and apply this check to the fresh pool once
            pool = await store.pools.get_by_id(pool.id)
            if not pool.running:
                store.modifiers.release(store.modifiers.ticket(interaction.id))
                ended = await ended_sentence(interaction, store, pool)
                raise UserError(f"{ended}; this check did not count.") from None
            if attempt:
                store.modifiers.release(store.modifiers.ticket(interaction.id))
                raise UserError("Another check was made at the same moment; click again.") from None
    who = shown_name(interaction.user.display_name)
    compact = pool_compact(updated, check, change, applied, who=who, veiled=veiled)
    await publish(
        interaction,
        store,
        compact,
        details=details,
        mode=mode,
        system=SYSTEM,
        command="rps sustained roll",
        inputs=record.inputs,
        dice=dice,
        result=record.result,
        summary=record.summary,
        kind="RPS sustained check",
        log_id=log_id,
    )
    return updated, mode != "public" or veiled


async def _details(
    interaction: discord.Interaction[Any],
    pool: Pool,
    build: BaseBuild,
    check: rps.RpsCheck,
    applied: Sequence[AppliedModifier],
    change: int,
    veiled: bool,
) -> discord.Embed:
    """The check's details with ``pool`` as it stands after it: stored with the check's log row."""
    embed = check_details(
        build,
        check,
        applied,
        title=f"RPS sustained action {shown_name(pool.name)}: {check.name}",
        extra_fields=pool_progress_fields(pool, change, veiled=veiled),
        rules=["RPS-8"],
    )
    # the chance this check had, then the pool's future as it stands after it (RPS-8)
    if veiled:
        return add_odds(embed, rps_line(build.base, check.sl))
    pool_line = await interaction.client.workers.run(sustained_line, pool)
    return add_odds(embed, f"{rps_line(build.base, check.sl)}\nPool now: {pool_line}")
