"""Free dice for `/roll`: standard notation (``2d6+3``, ``4d6kh3``, ``d100``) read and rolled by Avrae's d20.

`read_dice` checks an expression against the limits below before a die is rolled, so that no expression
can hold the event loop; `roll_dice` rolls it with the bot's random source; `free_roll_embed` renders the
result as a title and one line. Every refusal is a `UserError` of one sentence saying what to change.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import d20
import discord

from bot.core.common import one_line
from bot.ui.embeds import TITLE_MAX, keep_outcome, result_embed, shown_name
from bot.ui.reply import UserError

# Characters of an expression. It also keeps every number far inside a float's range (no power
# operator: a product of factors written in 200 characters stays below 10**200).
MAX_LENGTH = 200
MAX_DICE = 1000  # dice written in one expression (``1000d6`` or ``500d6+500d6``)
MAX_SIDES = 10_000
MAX_EXTRA = 100  # dice that rerolls and explosions may add to one roll
# Rerolls and explosions that repeat until no die qualifies. d20 counts every die rolled against one cap,
# so a group rolled early could take the cap meant for the dice after it, and each repeat looks at the
# whole group again: an expression with them rolls at most MAX_OPERATED dice besides the extra ones.
REPEATING = ("rr", "e")
# Keep, drop, reroll, explode, min and max look at the whole group for each die they touch (d20's keep
# sorts the group once per kept die), so their cost grows with the square of the group: the dice they
# work on, summed over every such operation, are capped.
MAX_OPERATED = 100
# d20 evaluates, totals and prints a tree by recursion, about three frames a level: a cap on nesting keeps
# ``-----1`` or ``((((1))))`` well inside Python's recursion limit.
MAX_DEPTH = 100
LINE_MAX = 200  # characters of the dice line under the title
SHOWN_PER_GROUP = (10, 3)  # dice listed per group before "… N more", tried in turn until the line fits
EXAMPLE = "2d6+3"
KIND = "dice"  # what a hidden roll's public notice says was rolled
_SPACES = re.compile(r"\s+")
_OUTSIDE_BRACKETS = re.compile(r"\[[^\]]*\]|[^\[]+|\[")


shown = shown_name  # a label or annotation is shown as a name is


def _echo(text: str) -> str:
    """``text`` inside a code span of a refusal (a backtick would end the span)."""
    return "`" + one_line(text).replace("`", "'") + "`"


@dataclass(frozen=True)
class DiceExpression:
    """An expression that passed every limit: its text as read and the tree d20 parsed."""

    text: str
    tree: Any  # d20.ast.Expression
    dice: int  # dice written in it


@dataclass(frozen=True)
class FreeRoll:
    """A rolled expression: its total, the dice line, and every face rolled (dropped ones too)."""

    expression: str
    total: int
    line: str
    breakdown: str  # every die, for the log
    faces: list[int]


def normalise(expression: str) -> str:
    """One space for any run of whitespace, and lower case outside ``[annotations]`` (``2D6`` is ``2d6``)."""
    text = _SPACES.sub(" ", expression).strip()
    return "".join(
        part if part.startswith("[") and part.endswith("]") else part.lower()
        for part in _OUTSIDE_BRACKETS.findall(text)
    )


def percentile(text: str) -> str:
    """``d%`` as ``d100`` (outside annotations): d20 reads ``%`` as the tens die of a pair (0, 10 .. 90),
    where a table's d% is a d100 (1..100)."""
    return "".join(
        part if part.startswith("[") and part.endswith("]") else part.replace("d%", "d100")
        for part in _OUTSIDE_BRACKETS.findall(text)
    )


def read_dice(expression: str) -> DiceExpression:
    """Parse ``expression`` and check it against the limits; a refusal says where or what to change."""
    text = normalise(expression)
    if not text:
        raise UserError(f"Give some dice to roll, like `{EXAMPLE}`.")
    if len(text) > MAX_LENGTH:
        raise UserError(
            f"That expression is {len(text)} characters long; I read at most {MAX_LENGTH}, "
            f"so split it into several rolls."
        )
    try:
        tree = d20.parse(percentile(text))
    except d20.RollSyntaxError as error:
        raise UserError(_syntax_sentence(text, error)) from None
    dice = 0
    operated = 0
    depth = 0
    repeating = False
    for node, level in _walk_levels(tree):
        depth = max(depth, level)
        if isinstance(node, d20.ast.Dice):
            if node.num == 0:  # d20 rolls it as 0 with no dice shown: surely a typo
                raise UserError(f"`0d{node.size}` in {_echo(text)} rolls no dice; roll at least one.")
            dice += node.num
            if node.size != "%" and not 1 <= node.size <= MAX_SIDES:
                raise UserError(
                    f"`d{node.size}` in {_echo(text)} is not a die I roll: dice have 1 to "
                    f"{MAX_SIDES:,} sides (or `d%`)."
                )
        elif isinstance(node, d20.ast.OperatedSet):
            # d20 merges ``kh1kl1`` into one operation with two selectors: each selector counts
            operated += _group_size(node.value) * sum(len(op.sels) for op in node.operations)
            repeating = repeating or any(op.op in REPEATING for op in node.operations)
            for op in node.operations:  # d20 keeps nothing and totals 0: surely a typo, as 0d6 is
                if op.op == "k" and all(sel.cat in ("h", "l") and sel.num == 0 for sel in op.sels):
                    kept = "".join(f"k{sel.cat}0" for sel in op.sels)
                    raise UserError(
                        f"`{kept}` in {_echo(text)} keeps no dice; keep at least one, like `kh1`."
                    )
    if depth > MAX_DEPTH:
        raise UserError(f"{_echo(text)} nests {depth} levels deep; I read at most {MAX_DEPTH}.")
    if dice > MAX_DICE:
        raise UserError(f"{_echo(text)} rolls {dice:,} dice; I roll at most {MAX_DICE:,} in one expression.")
    if operated > MAX_OPERATED:
        raise UserError(
            f"{_echo(text)} keeps, drops, rerolls or explodes among {operated:,} dice (each operation "
            f"counts the dice it looks at); I do that for at most {MAX_OPERATED} in one roll, "
            "so use fewer dice."
        )
    if repeating and dice > MAX_OPERATED:
        raise UserError(
            f"{_echo(text)} rerolls or explodes, and then I roll at most {MAX_OPERATED} dice besides the "
            f"extra ones; it has {dice:,}, so roll the rest separately."
        )
    return DiceExpression(text, tree, dice)


def _syntax_sentence(text: str, error: d20.RollSyntaxError) -> str:
    """Where d20's parser stopped, in words: the position (from 1) and what it found there."""
    got = error.got
    if getattr(got, "type", None) == "$END" or not str(got):
        where = f"at position {len(text) + 1}: the expression ends after {_echo(text[-1:])}"
    else:
        where = f"at position {error.col}: {_echo(str(got))} does not belong there"
    return f"I can't read {_echo(text)} {where}; try something like `{EXAMPLE}`."


def _walk_levels(node: Any) -> Iterator[tuple[Any, int]]:
    """Every node of a d20 tree (parsed or rolled) with its depth, without recursion."""
    stack = [(node, 0)]
    while stack:
        current, level = stack.pop()
        yield current, level
        stack.extend((child, level + 1) for child in current.children)


def _walk(node: Any) -> Iterator[Any]:
    """Every node of a d20 tree, depth first."""
    return (current for current, _ in _walk_levels(node))


def _group_size(node: Any) -> int:
    """How many dice an operation on ``node`` looks at: a group's dice, or else its values and every die
    inside them (keeping from ``(2d6+1, 1d8)`` sorts the values by their totals, once per value kept)."""
    while isinstance(node, d20.ast.AnnotatedNumber | d20.ast.Parenthetical | d20.ast.OperatedSet):
        node = node.value
    if isinstance(node, d20.ast.Dice):
        return int(node.num)
    values = len(node.values) if isinstance(node, d20.ast.NumberSet) else 1
    return values + sum(int(n.num) for n in _walk(node) if isinstance(n, d20.ast.Dice))


@contextlib.contextmanager
def _dice_from(rng: random.Random) -> Iterator[None]:
    """For the block, the module-level functions of `random` (which d20 rolls with) draw from ``rng``.

    d20 takes no random source, so the shared generator is seeded from ``rng`` (DICE_SEED makes /roll
    repeatable; production seeds it from SystemRandom) and put back afterwards. The roll makes no await,
    so nothing else on the event loop draws from it meanwhile.
    """
    saved = random.getstate()
    random.seed(rng.getrandbits(128))
    try:
        yield
    finally:
        random.setstate(saved)


def roll_dice(expression: DiceExpression, rng: random.Random) -> FreeRoll:
    """Roll ``expression`` (from `read_dice`) with ``rng``; a refusal changes nothing."""
    roller = d20.Roller(d20.RollContext(max_rolls=expression.dice + MAX_EXTRA))
    try:
        with _dice_from(rng):
            result = roller.roll(expression.tree)
        total = result.total
        breakdown = str(result)
    except d20.TooManyRolls:
        raise UserError(
            f"{_echo(expression.text)} kept rerolling or exploding past {MAX_EXTRA} extra dice, so I "
            f"stopped; make the trigger rarer (`e6` on a d6, not `e>1`)."
        ) from None
    except d20.RollValueError as error:
        reason = str(error).rstrip(".").lower()
        raise UserError(f"I can't roll {_echo(expression.text)}: {reason}.") from None
    _escape_annotations(result.expr)
    return FreeRoll(
        expression=expression.text,
        total=total,
        line=dice_line(result.expr, total),
        breakdown=breakdown,
        faces=_faces(result.expr),
    )


def _faces(expr: Any) -> list[int]:
    """Every face rolled, rerolls and dropped dice included (a ``mi``/``ma`` change is not a face)."""
    return [
        int(face.values[0])
        for node in _walk(expr)
        if isinstance(node, d20.Dice)  # its dice are not among its children
        for die in node.values
        for face in die.values
    ]


def _escape_annotations(expr: Any) -> None:
    """Annotations (``1d6[fire]``) are the player's own text: shown escaped like a name."""
    for node in _walk(expr):
        if node.annotation:
            node.annotation = shown(node.annotation)


class _ShortStringifier(d20.MarkdownStringifier):
    """d20's markdown (dropped dice struck through, 1s and maxima in bold) with long groups cut."""

    def __init__(self, per_group: int) -> None:
        super().__init__()
        self.per_group = per_group

    def _str_dice(self, node: Any) -> str:
        dice = [self._stringify(die) for die in node.values[: self.per_group]]
        hidden = len(node.values) - len(dice)
        if hidden:
            dice.append(f"… {hidden} more")
        return f"{node.num}d{node.size}{self._str_ops(node.operations)} ({', '.join(dice)})"


def dice_line(expr: Any, total: int) -> str:
    """The dice under the title: every die while the line is short, fewer per group when it is not."""
    line: str = _ShortStringifier(max(SHOWN_PER_GROUP)).stringify(expr)
    for per_group in SHOWN_PER_GROUP[1:]:
        if len(line) <= LINE_MAX:
            break
        line = _ShortStringifier(per_group).stringify(expr)
    if len(line) <= LINE_MAX:
        return line
    # too many groups, or a long number: the dice in order, then the total
    dice = [die.number for node in _walk(expr) if isinstance(node, d20.Dice) for die in node.values]
    if not dice:
        return f"No dice, only numbers: `{number(total)}`"
    cap = max(SHOWN_PER_GROUP)
    more = f", … {len(dice) - cap} more" if len(dice) > cap else ""
    return f"{len(dice)} dice ({', '.join(map(str, dice[:cap]))}{more}) = `{number(total)}`"


def number(value: int) -> str:
    """A total as the table reads it: exact up to 30 digits, else its first digits and its size."""
    digits = str(abs(value))
    if len(digits) <= 30:
        return str(value)
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:4]}e{len(digits) - 1}"


def free_roll_title(roller: str, rolled: FreeRoll, label: str | None) -> str:
    """``Bea - Damage: 11``, or ``Bea - 2d6+3: 11`` without a label."""
    what = shown(label.strip()) if label and label.strip() else shown(rolled.expression)
    return keep_outcome(f"{shown(roller)} - {what}: {number(rolled.total)}", TITLE_MAX)  # the total stays


def free_roll_embed(roller: str, rolled: FreeRoll, label: str | None = None) -> discord.Embed:
    """A title saying who rolled what and the total, then the dice line."""
    return result_embed(free_roll_title(roller, rolled, label), description=rolled.line)


def free_roll_summary(rolled: FreeRoll, label: str | None) -> str:
    """The log's one line: ``Damage: 2d6+3 = 11``."""
    head = f"{label.strip()}: " if label and label.strip() else ""
    return f"{head}{rolled.expression} = {rolled.total}"
