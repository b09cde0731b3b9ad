"""`/roll`'s free dice (bot/ui/freeroll.py): reading, limits, rolling with the bot's dice, rendering."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ui.embeds import NEUTRAL
from bot.ui.freeroll import (
    LINE_MAX,
    MAX_DEPTH,
    MAX_DICE,
    MAX_EXTRA,
    MAX_LENGTH,
    MAX_OPERATED,
    MAX_SIDES,
    FreeRoll,
    free_roll_embed,
    free_roll_summary,
    free_roll_title,
    normalise,
    number,
    read_dice,
    roll_dice,
    shown,
)
from bot.ui.reply import UserError

SEED = 1234


def rolled(expression: str, seed: int = SEED) -> FreeRoll:
    return roll_dice(read_dice(expression), random.Random(seed))


def refusal(expression: str, seed: int = SEED) -> str:
    with pytest.raises(UserError) as caught:
        rolled(expression, seed)
    return str(caught.value)


# -- reading -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("expression", "dice"),
    [("2d6+3", 2), ("4d6kh3", 4), ("d100", 1), ("1d20+5", 1), ("2d20kl1", 2), ("(1d8+2)*2", 1), ("d%", 1)],
)
def test_standard_notation_reads(expression: str, dice: int) -> None:
    read = read_dice(expression)
    assert read.text == expression and read.dice == dice


def test_no_dice_is_refused() -> None:
    assert refusal("0d6") == "`0d6` in `0d6` rolls no dice; roll at least one."
    assert refusal("1d20 + 0d4") == "`0d4` in `1d20 + 0d4` rolls no dice; roll at least one."
    # keeping none of them is the same typo; a literal keep (k6: the sixes) may keep none, as asked
    assert refusal("2d6kl0") == "`kl0` in `2d6kl0` keeps no dice; keep at least one, like `kh1`."
    assert refusal("(1d4,2d6)kh0 + 1") == (
        "`kh0` in `(1d4,2d6)kh0 + 1` keeps no dice; keep at least one, like `kh1`."
    )
    assert read_dice("4d6k6").dice == 4 and read_dice("2d6kh0kl1").dice == 2


def test_d_percent_is_a_d100() -> None:  # General: a d100 shows 1..100
    faces = {rolled("d%", seed).total for seed in range(2000)}
    assert min(faces) == 1 and max(faces) == 100 and len(faces) == 100
    assert rolled("d%", 7).total == rolled("d100", 7).total
    assert rolled("2d%+1d4[d% as written]").expression == "2d%+1d4[d% as written]"


def test_case_and_spaces_are_forgiven_but_annotations_keep_theirs() -> None:
    assert normalise("  2D6 +\t3 ") == "2d6 + 3"
    assert normalise("1D6[Fire] + 1D4[Cold Iron]") == "1d6[Fire] + 1d4[Cold Iron]"
    assert rolled("2D6 + 3").total == rolled("2d6+3").total


@pytest.mark.parametrize(
    ("expression", "sentence"),
    [
        (
            "2d6+",
            "I can't read `2d6+` at position 5: the expression ends after `+`; try something like `2d6+3`.",
        ),
        (
            "1d20!!",
            "I can't read `1d20!!` at position 5: `!!` does not belong there; try something like `2d6+3`.",
        ),
        (
            "d6 d6",
            "I can't read `d6 d6` at position 4: `d6` does not belong there; try something like `2d6+3`.",
        ),
        (
            "1d6)",
            "I can't read `1d6)` at position 4: `)` does not belong there; try something like `2d6+3`.",
        ),
        (
            "((1d6",
            "I can't read `((1d6` at position 6: the expression ends after `6`; try something like `2d6+3`.",
        ),
        (
            "1d20 to hit",
            "I can't read `1d20 to hit` at position 6: `to hit` does not belong there; "
            "try something like `2d6+3`.",
        ),
        ("   ", "Give some dice to roll, like `2d6+3`."),
    ],
)
def test_a_bad_expression_is_one_sentence_saying_where(expression: str, sentence: str) -> None:
    assert refusal(expression) == sentence


def test_a_backtick_cannot_break_out_of_the_quoted_expression() -> None:
    sentence = refusal("4d6kh3`x")
    assert sentence.startswith("I can't read `4d6kh3'x` at position 7") and sentence.count("`") % 2 == 0


# -- limits --------------------------------------------------------------------------------------------------
def test_length_limit() -> None:
    assert read_dice("1+" * 99 + "1")  # 199 characters
    assert refusal("1+" * 100 + "1") == (
        f"That expression is 201 characters long; I read at most {MAX_LENGTH}, "
        "so split it into several rolls."
    )


def test_dice_limit_counts_every_group() -> None:
    assert read_dice(f"{MAX_DICE}d6").dice == MAX_DICE
    assert refusal("500d6+501d6") == "`500d6+501d6` rolls 1,001 dice; I roll at most 1,000 in one expression."
    assert "rolls 1,000,000 dice" in refusal("1000000d6")


def test_die_size_limit() -> None:
    assert read_dice(f"1d{MAX_SIDES}")
    assert refusal("1000000d1000000") == (
        "`d1000000` in `1000000d1000000` is not a die I roll: dice have 1 to 10,000 sides (or `d%`)."
    )
    assert refusal("1d0").startswith("`d0` in `1d0` is not a die I roll")
    assert refusal("1d99999999999999999999").startswith("`d99999999999999999999` in")


def test_operations_are_capped_by_the_dice_they_look_at() -> None:
    assert read_dice(f"{MAX_OPERATED}d6kh1")
    assert read_dice("50d6kh40kl1")  # 50 + 50
    assert read_dice("(1,2,3)kh1")
    assert read_dice("(" + ",".join(["4d6kh3"] * 6) + ")kh1")  # 6 values + 24 dice, then 6 x 4 dice
    for expression, counted in [
        (f"{MAX_OPERATED + 1}d6kh1", 101),
        ("1000d6kh999", 1000),
        ("50d6kh40kl1p1", 150),
        ("(1000d6)kh1", 1000),  # a parenthesis keeps from the dice inside it
        ("100d6" + "mi3" * 2, 200),
        ("(999d6," + "1," * 9 + "1)kh1", 1010),  # a set's 11 values and the dice inside them
        ("(1000d6+0)kh1", 1001),  # a sum is one value, totalled from its dice
    ]:
        assert refusal(expression) == (
            f"`{expression}` keeps, drops, rerolls or explodes among {counted:,} dice (each operation "
            f"counts the dice it looks at); I do that for at most {MAX_OPERATED} in one roll, "
            "so use fewer dice."
        )


def test_rerolls_and_explosions_leave_room_for_no_more_than_100_other_dice() -> None:
    assert read_dice("8d6e6+92d6")
    assert read_dice("8d6ro1+8d6ra6+900d6")  # once only: no repeats
    assert refusal("d2e<5+500d10000") == (
        "`d2e<5+500d10000` rerolls or explodes, and then I roll at most 100 dice besides the extra ones; "
        "it has 501, so roll the rest separately."
    )
    assert "it has 101" in refusal("1d6rr1+100d6")


def test_nesting_limit() -> None:
    assert rolled("(" * 60 + "1d6" + ")" * 60).total in range(1, 7)
    assert refusal("-" * 150 + "1") == f"`{'-' * 150}1` nests 151 levels deep; I read at most {MAX_DEPTH}."


@pytest.mark.parametrize("expression", ["1d1e1", "1d1rr1", "100d6rrl1", "3d2e>0", "1d6e<7"])
def test_rerolls_and_explosions_stop(expression: str) -> None:
    assert refusal(expression) == (
        f"`{expression}` kept rerolling or exploding past {MAX_EXTRA} extra dice, so I stopped; "
        "make the trigger rarer (`e6` on a d6, not `e>1`)."
    )


def test_values_d20_refuses_are_one_sentence() -> None:
    assert refusal("1/0") == "I can't roll `1/0`: cannot divide by zero."
    assert refusal("1d6mih3") == "I can't roll `1d6mih3`: h3 is not a valid selector for minimums."


def test_huge_numbers_are_rolled_and_shortened_for_reading() -> None:
    result = rolled("99999999999999999999")
    assert result.total == 99999999999999999999 and result.faces == []
    big = rolled("9" * 100 + "*" + "9" * 90)
    assert big.total == (10**100 - 1) * (10**90 - 1)
    assert big.line == "No dice, only numbers: `9.999e189`" and number(-(10**40)) == "-1.000e40"


HOSTILE = [
    "1000000d1000000",
    "1000d10000",
    "100d6kh99",
    "100d6rrl1",
    "1d1e1",
    "1d2e>0",
    "10d10e>1",
    "1d20!!",
    "99999999999999999999",
    "(" * 95 + "1d6" + ")" * 95,
    "-" * 99 + "1d6",
    "+".join(["1d6"] * 49),
    "(" + ",".join(["1d6"] * 49) + ")kh1",
    "(902d6," + "1," * 94 + "1)kh1",
    "9" * 100 + "*" + "9" * 90,
    "(d2e<5e<100)p1+d100e50k6+500d10000+2d100+d1e<1",
    "d10000e3e1rr<100e<0k>2ro5e>5e5e6e3ma0p6mi100pl1rrh2e<6pl6kl5kh5rr6ra2ph1e2e>50rrl0*500d6*1d10000",
    "d2e<5" + "+1d2" * 39,
    "(1000d6+0)kh1" + "kh1" * 60,
]


@pytest.mark.parametrize("expression", HOSTILE)
def test_hostile_expressions_are_answered_at_once(expression: str) -> None:
    assert len(expression) <= MAX_LENGTH
    start = time.perf_counter()
    try:
        result = rolled(expression)
    except UserError:
        pass
    else:
        assert len(result.line) <= LINE_MAX
    # the worst of these takes a few milliseconds; the bound only catches a limit that stopped working
    assert time.perf_counter() - start < 0.5


DICE_TEXT = st.text(alphabet="0123456789d%+-*/()<>=!,. khlpreoima[]", max_size=60) | st.text(max_size=60)


@given(DICE_TEXT, st.integers(0, 2**32))
def test_any_text_is_rolled_or_refused_in_a_sentence(text: str, seed: int) -> None:
    try:
        result = rolled(text, seed)
    except UserError as refused:
        assert str(refused).endswith(".") and "\n" not in str(refused)
    else:
        assert len(result.line) <= LINE_MAX and "\n" not in result.line


# -- rolling -------------------------------------------------------------------------------------------------
def test_a_seeded_roll_is_repeatable_and_shown_exactly() -> None:
    result = rolled("2d6+3")
    assert (result.total, result.faces) == (11, [6, 2])
    assert result.line == result.breakdown == "2d6 (**6**, 2) + 3 = `11`"
    assert rolled("4d6kh3").line == "4d6kh3 (**6**, 2, 3, ~~2~~) = `11`"
    assert [rolled("1d20", seed).total for seed in range(5)] == [rolled("1d20", s).total for s in range(5)]


def test_the_dice_come_from_the_given_source_not_the_shared_generator() -> None:
    before = random.getstate()
    random.seed(1)
    one = rolled("10d20", seed=99)
    random.seed(2)
    two = rolled("10d20", seed=99)
    assert one.faces == two.faces
    random.seed(3)
    state = random.getstate()
    rolled("10d20", seed=5)
    assert random.getstate() == state  # put back as it was
    random.setstate(before)


def test_production_dice_come_from_the_system_source() -> None:
    result = roll_dice(read_dice("10d20"), random.SystemRandom())
    assert len(result.faces) == 10 and all(1 <= f <= 20 for f in result.faces)


@given(st.integers(0, 2**32), st.integers(1, 20), st.integers(2, 100))
def test_keep_highest_keeps_the_highest(seed: int, count: int, sides: int) -> None:
    keep = max(1, count - 1)
    result = rolled(f"{count}d{sides}kh{keep}", seed)
    assert len(result.faces) == count and all(1 <= f <= sides for f in result.faces)
    assert result.total == sum(sorted(result.faces)[-keep:])


def test_exploding_dice_add_their_rolls() -> None:
    result = rolled("20d6e6", seed=3)
    assert len(result.faces) == 20 + result.faces.count(6)
    assert result.total == sum(result.faces) and "6!" in result.line


def test_rerolled_faces_are_logged_too() -> None:
    result = rolled("8d6rr1", seed=11)
    assert len(result.faces) == 8 + result.faces.count(1)
    assert result.total == sum(f for f in result.faces if f != 1)


# -- rendering -----------------------------------------------------------------------------------------------
def test_title_says_who_rolled_what_and_the_result() -> None:
    result = rolled("2d6+3")
    assert free_roll_title("Bea", result, "Damage") == "Bea - Damage: 11"
    assert free_roll_title("Bea", result, None) == "Bea - 2d6+3: 11"
    assert free_roll_title("Bea", result, "   ") == "Bea - 2d6+3: 11"
    # a long name and label (markdown doubles when escaped) are cut before the total, never in it
    long = free_roll_title("*" * 32, result, "*" * 100)
    assert len(long) <= 256 and long.endswith("…: 11"), long
    assert free_roll_summary(result, "Damage") == "Damage: 2d6+3 = 11"
    assert free_roll_summary(result, None) == "2d6+3 = 11"


def test_names_labels_and_annotations_are_shown_as_typed_not_as_markdown() -> None:
    result = rolled("1d6[**fire**]+2")
    title = free_roll_title("B*e*a", result, "__Boom__ ~~x~~ \u202etxt")
    assert title == f"B\\*e\\*a - \\_\\_Boom\\_\\_ \\~\\~x\\~\\~ txt: {result.total}"
    assert "[\\*\\*fire\\*\\*]" in result.line
    assert shown("`code`") == "\\`code\\`"


def test_the_message_is_a_title_and_one_short_line() -> None:
    for expression in ["2d6+3", "1000d6", "+".join(["1d6"] * 49), "(" + ",".join(["1d6"] * 49) + ")kh1"]:
        embed = free_roll_embed("Bea", rolled(expression), "Damage")
        assert embed.description is not None and "\n" not in embed.description
        assert len(embed.description) <= LINE_MAX and not embed.fields
        assert embed.colour == NEUTRAL


def test_long_groups_are_cut_and_say_how_many_more() -> None:
    result = rolled("1000d6")
    assert result.line.startswith("1000d6 (") and ", … 990 more) = `" in result.line
    assert len(result.faces) == 1000 and result.total == sum(result.faces)
    many = rolled("+".join(["1d6"] * 49))
    assert many.line.startswith("49 dice (") and ", … 39 more) = `" in many.line
    assert many.line.endswith(f"= `{many.total}`")


def test_a_roll_without_dice_says_so() -> None:
    assert rolled("1+" * 66 + "1").line == "No dice, only numbers: `67`"
    assert rolled("3*4").line == "3 * 4 = `12`"
