"""The words of a compact result (issue 31, item 1): margins as the seed names them, glossed where a
newcomer would stumble, and never more than three lines."""

import pytest

from bot.core.systemx import CF, CS, F0, F2, S0, S2, S3, MarginStyle
from bot.ui.embeds import COMPACT_TITLE, compact_embed, keep_outcome
from bot.ui.sysx import outcome_words

LETTERS, SIGNED = MarginStyle.LETTERS, MarginStyle.SIGNED


@pytest.mark.parametrize(
    ("margin", "style", "succeeded", "words"),
    [
        (S2, LETTERS, True, "S2, success"),
        (F2, LETTERS, False, "F2, failure"),
        (F0, LETTERS, False, "F0, just short"),  # not a bare "-0"
        (F0, SIGNED, False, "-0, just short"),
        (S0, LETTERS, True, "S0, just made it"),
        (S0, LETTERS, False, "S0, failure"),  # SX-7: short of a required S1 or more
        (S2, SIGNED, False, "+2, failure"),
        (F0, LETTERS, True, "F0, success"),  # SX-7: a required F1 or less is met
        (CS, LETTERS, True, "CS, critical success"),
        (CF, SIGNED, False, "CF, critical failure"),
        (CF, LETTERS, True, "CF, success"),  # SX-7: a required CF is met by CF
        (S3, SIGNED, True, "+3, success"),
    ],
)
def test_item1_margins_in_the_seeds_words(margin, style, succeeded, words) -> None:  # SX-7
    assert outcome_words(margin, style, succeeded) == words


def test_item1_a_compact_result_has_at_most_three_lines() -> None:
    embed = compact_embed("Bea - Perception: S2, success", ["one", None, "two", "three"])
    assert embed.description == "one\ntwo\nthree" and not embed.fields and embed.footer.text is None
    with pytest.raises(ValueError):
        compact_embed("Too long", ["1", "2", "3", "4"])


def test_a_long_title_is_cut_before_its_outcome() -> None:
    names = ", ".join(f"{'Z' * 55} {n}" for n in range(6))
    title = keep_outcome(f"Combined: {names}: -9, failure")
    assert len(title) == COMPACT_TITLE and title.endswith("…: -9, failure")
    assert keep_outcome("Ayla - Climb: S2, success") == "Ayla - Climb: S2, success"
