"""An RPS check published, and the second tries a GM grants after a failed one (RPS-9).

`publish_check` logs and shows a check; on a failed one (SL 0 or less) it puts the GM's buttons, which
the cog gives, where a GM sees the result. `grant_second_try` stores a grant, once per failed check,
whoever clicks first. `take_second_try` rolls it for the player who failed, at the failed check's Base as
it was built (its parts are kept in the check's log row) plus the GM's modifier: the grant, the try's log
row and the GM modifier uses it took are one transaction, so a double click rolls it once. A failed try
is a failed check like any other: the GM may grant another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import discord

from bot.core import rps
from bot.store import AppliedModifier, Conflict, RollRecord, SecondTry, Store
from bot.ui.embeds import shown_name
from bot.ui.odds import add_odds, rps_line
from bot.ui.reply import UserError
from bot.ui.rolls import publish, roll_record
from bot.ui.rps import (
    BaseBuild,
    BasePart,
    BaseSpec,
    check_compact,
    check_details,
    check_summary,
    part_records,
    roll_check,
    stored_spec,
)
from bot.ui.visibility import Mode

SYSTEM = "rps"
CHECK_KIND = "check"  # inputs["kind"] of a logged check or second try: what a GM may grant a try of
CHECK_COMMAND = "rps check"
SECOND_TRY_COMMAND = "rps second try"
KIND = "RPS check"
ALREADY_GRANTED = "A second try was already granted for that check."
ALREADY_TAKEN = "This second try was already taken."
FORGO_REFUSED = (
    "Asked, but the GM's difficulty brought the Base to {base}, not above {above}: the dice were rolled."
)

#: A GM's buttons for a logged check, given its log id (the cog's Grant button).
GmItems = Callable[[int], Sequence[discord.ui.Item[Any]]]


def logged_check(record: RollRecord) -> rps.RpsCheck | None:
    """The RPS check a log row holds (a check or a second try), or None for any other roll."""
    inputs = record.inputs if isinstance(record.inputs, dict) else {}
    if record.system != SYSTEM or inputs.get("kind") != CHECK_KIND:
        return None
    if inputs.get("assumed"):
        return rps.forgo(int(inputs["base"]), granted_by_gm=True)
    return rps.check(int(inputs["base"]), *record.dice)


def task_spec(record: RollRecord) -> BaseSpec:
    """The logged check's Base as it was built, the GM's difficulty that applied to it included, with its
    parts (RPS-9: a second try is at the same Base as the failed check). A check logged before 2026-11-28
    kept its Base before the GM's modifiers here."""
    inputs = record.inputs
    parts = inputs.get("task_parts") or ()
    return stored_spec(int(inputs["task_base"]), str(inputs.get("what") or "Base"), parts)


async def publish_check(
    interaction: discord.Interaction[Any],
    store: Store,
    *,
    mode: Mode,
    build: BaseBuild,
    result: rps.RpsCheck,
    applied: Sequence[AppliedModifier],
    task: BaseBuild,
    gm_items: GmItems,
    second_try: tuple[RollRecord, SecondTry] | None = None,
    forgo_refused: bool = False,
) -> int:
    """Log and show one check (or a second try: the failed check and its grant); its log id.

    ``task``: the check's Base as built (its GM difficulty included, a second try's own modifier not),
    as a later second try builds it again. ``forgo_refused``: the player asked to forgo the roll, and the
    GM's difficulty brought the Base to 15 or below (RPS-6), so the dice were rolled.
    """
    failed = result.sl <= 0
    grantable = interaction.guild is not None  # a DM has no GM to grant a second try
    compact = check_compact(
        build,
        result,
        applied,
        who=shown_name(interaction.user.display_name),
        second_try=bool(second_try),
        grantable=grantable,
        forgo_refused=forgo_refused,
    )
    extra = [("Second try", second_try_note(*second_try, mode))] if second_try else []
    if forgo_refused:
        extra.append(("Forgo (RPS-6)", FORGO_REFUSED.format(base=build.base, above=rps.FORGO_ABOVE)))
    details = check_details(
        build,
        result,
        applied,
        title=f"RPS {'second try: ' if second_try else ''}{build.what}: {result.name}",
        extra_fields=extra,
        rules=["RPS-9"] if second_try or failed else [],
    )
    if result.dice is not None:  # a forgone check (RPS-6) had no chance to take
        add_odds(details, rps_line(build.base, result.sl))
    command = SECOND_TRY_COMMAND if second_try else CHECK_COMMAND
    inputs = {
        "kind": CHECK_KIND,
        "roller_id": interaction.user.id,
        "what": build.what,
        "base": build.base,
        "task_base": task.base,
        "task_parts": part_records(task.parts),
        "parts": [part.text() for part in build.parts],
        "assumed": result.assumed,
        "granted_by_gm": result.granted_by_gm,
        "sl": result.sl,
        "retry_of": second_try[0].id if second_try else None,
        "granted_by": second_try[1].granted_by if second_try else None,
    }
    dice = list(result.dice) if result.dice else []
    outcome, summary = f"SL {result.sl}: {result.name}", check_summary(build, result)
    log_id: int | None = None
    if second_try is not None:  # logged with the grant's use, in one transaction
        failed_id = second_try[0].id
        assert failed_id is not None
        record = roll_record(
            interaction, mode=mode, system=SYSTEM, command=command, inputs=inputs, dice=dice,
            result=outcome, summary=summary, details=details,
        )  # fmt: skip
        ticket = store.modifiers.ticket(interaction.id)
        try:
            log_id = await store.second_tries.take_logged(failed_id, interaction.user.id, record, ticket)
        except Conflict:
            raise UserError(ALREADY_TAKEN) from None
    log_id, _ = await publish(
        interaction,
        store,
        compact,
        details=details,
        mode=mode,
        system=SYSTEM,
        command=command,
        inputs=inputs,
        dice=dice,
        result=outcome,
        summary=summary,
        kind=KIND,
        log_id=log_id,
        gm_items=gm_items if failed and grantable else None,
    )
    return log_id


def second_try_note(failed: RollRecord, grant: SecondTry, mode: Mode) -> str:
    """Which failed check a try retries and who granted it (a hidden check's SL stays out of public)."""
    check = logged_check(failed)
    sl = "" if check is None or (failed.hidden and mode == "public") else f" (SL {check.sl})"
    return f"of the failed check #{failed.id}{sl}, granted by <@{grant.granted_by}>"


async def grant_second_try(
    interaction: discord.Interaction[Any], store: Store, record: RollRecord, modifier: int
) -> SecondTry:
    """RPS-9: the clicking GM grants the roller of the failed check ``record`` another try with
    ``modifier``; refused when the check succeeded or already has a grant (a double click grants once).
    The caller checked that the clicker is a GM of the check's channel."""
    check = logged_check(record)
    if check is None or record.id is None:
        raise UserError("Only an RPS check can be tried again.")
    rps.second_try_modifier(check, modifier)  # refuses a check that succeeded, and a modifier out of range
    grant = SecondTry(
        log_id=record.id,
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        roller_id=int(record.inputs["roller_id"]),
        modifier=modifier,
        granted_by=interaction.user.id,
    )
    if not await store.second_tries.grant(grant):
        raise UserError(ALREADY_GRANTED)
    return grant


def tried_at(inputs: dict[str, Any]) -> str:
    """What a second try retries, as its check was named: ``Stealth (Agility)``, or ``Base 12`` for a raw
    Base (the failed check's Base)."""
    what = str(inputs["what"])
    return f"Base {inputs['task_base']}" if what == "Base" else shown_name(what)


def grant_text(record: RollRecord, grant: SecondTry) -> str:
    """The public line that comes with the player's Try again button."""
    what = "their hidden check" if record.hidden else tried_at(record.inputs)
    extra = f", with {grant.modifier:+d}" if grant.modifier else ""
    return (
        f"🎲 <@{grant.granted_by}> grants <@{grant.roller_id}> a second try at {what}{extra}: "
        f"only <@{grant.roller_id}> can press Try again."
    )


async def take_second_try(
    interaction: discord.Interaction[Any],
    store: Store,
    failed: RollRecord,
    grant: SecondTry,
    gm_items: GmItems,
) -> int:
    """Roll the granted try for the player who failed (the clicker), seen as the failed check was; its
    log id. `UserError` (nothing rolled) when it was taken already.

    RPS-9: at the failed check's Base, the GM's difficulty that applied to it included, plus the grant's
    modifier. It is the same attempt again, so it takes no pending GM modifier: those stay for the
    player's next check."""
    spec = task_spec(failed)
    fixed = [BasePart("second try", grant.modifier, modifier=True)] if grant.modifier else []
    build = spec.build(fixed)
    result = roll_check(interaction.client.rng, build.base)
    return await publish_check(
        interaction,
        store,
        mode=failed.visibility,
        build=build,
        result=result,
        applied=(),
        task=spec.build(),
        gm_items=gm_items,
        second_try=(failed, grant),
    )
