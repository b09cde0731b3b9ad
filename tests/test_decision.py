"""Decision dice rule engine: RULES.md DD-1..DD-8, the seed's example, exhaustive and property tests."""

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core import decision
from bot.core.common import Verdict
from bot.core.decision import (
    TARGET_NUMBERS,
    ContestParty,
    DiceMode,
    SupplyDie,
    bonus,
    contested,
    decision_dice_count,
    dice_mode,
    penalty,
    percent,
    roll,
    round_down_at_end,
    supply_roll,
    target_name,
    target_number,
)
from bot.core.errors import InvalidDie, RuleError

D6 = range(1, 7)
MODES = [
    (False, False, 2),
    (True, False, 3),
    (False, True, 1),
    (True, True, 2),
]


# ---------------------------------------------------------------------------- DD-2


# DD-2
@pytest.mark.parametrize(("advantage", "disadvantage", "count"), MODES)
def test_dd2_dice_count(advantage, disadvantage, count):
    assert decision_dice_count(advantage, disadvantage) == count
    assert dice_mode(advantage, disadvantage).count == count


# DD-2
def test_dd2_modes_named():
    assert dice_mode(True, False) is DiceMode.ADVANTAGE
    assert dice_mode(False, True) is DiceMode.DISADVANTAGE
    assert dice_mode(True, True) is DiceMode.NORMAL  # they cancel
    with pytest.raises(RuleError):
        decision_dice_count(2, False)  # type: ignore[arg-type]  # no stacking by counting


# DD-2
@pytest.mark.parametrize(("advantage", "disadvantage", "count"), MODES)
def test_dd2_wrong_number_of_dice_is_a_rule_error(advantage, disadvantage, count):
    for wrong in range(5):
        if wrong == count:
            continue
        with pytest.raises(RuleError, match=f"rolls {count}d6"):
            roll([3] * wrong, 0, 0, 6, advantage=advantage, disadvantage=disadvantage)


# DD-2
def test_dd2_two_dice_with_advantage_refused():
    with pytest.raises(RuleError):
        roll([3, 4], 0, 0, 6, advantage=True)


# ---------------------------------------------------------------------------- DD-1 exhaustive


# DD-1
@pytest.mark.parametrize(("advantage", "disadvantage", "count"), MODES)
def test_dd1_every_outcome_of_1d6_2d6_3d6(advantage, disadvantage, count):
    # DD-1, DD-2: every face combination for the mode, over a spread of stats, modifiers and targets.
    checked = 0
    for faces in itertools.product(D6, repeat=count):
        for stat, mods, target in itertools.product((-3, 0, 4), ((), (2,), (1, -3)), (2, 6, 12, 18, 20, 30)):
            result = roll(list(faces), stat, mods, target, advantage=advantage, disadvantage=disadvantage)
            total = sum(faces) + stat + sum(mods)
            assert result.dice == faces and result.dice_total == sum(faces)
            assert result.total == total and result.modifier_total == sum(mods) and result.stat == stat
            assert result.success is (total >= target)
            assert result.verdict is (Verdict.SUCCESS if total >= target else Verdict.FAILURE)
            assert result.margin == total - target
            assert result.name == result.verdict.value
            checked += 1
    assert checked == 6**count * 3 * 3 * 6


# DD-1
def test_dd1_tie_with_target_succeeds():
    result = roll((3, 3), 2, [1], 9)
    assert result.total == 9 and result.success and result.margin == 0
    assert not roll((3, 3), 2, [1], 10).success


# DD-1
def test_dd1_distribution_of_2d6_matches_seed_notes():
    # The seed: 2d6 averages 7; 8+ comes up 41% of the time, 58% with +1; 12 under 3%.
    outcomes = list(itertools.product(D6, D6))
    eight_plus = sum(roll(f, 0, 0, 8).success for f in outcomes)
    eight_plus_with_one = sum(roll(f, 0, 1, 8).success for f in outcomes)
    twelve = sum(roll(f, 0, 0, 12).success for f in outcomes)
    assert (eight_plus, eight_plus_with_one, twelve) == (15, 21, 1)
    assert sum(roll(f, 0, 0, 2).total for f in outcomes) == 7 * 36


# DD-1
@pytest.mark.parametrize(
    "call",
    [
        lambda: roll((7, 1), 0, 0, 6),
        lambda: roll((0, 1), 0, 0, 6),
        lambda: roll((1.0, 1), 0, 0, 6),
        lambda: roll("12", 0, 0, 6),
        lambda: roll((1, 1), 21, 0, 6),
        lambda: roll((1, 1), 0, [51], 6),
        lambda: roll((1, 1), 0, 0, 1),
        lambda: roll((1, 1), 0, 0, 31),
        lambda: roll((1, 1), 0, 0, "Tough"),
    ],
)
def test_dd1_bad_inputs_raise_rule_error(call):
    with pytest.raises(RuleError):
        call()


# DD-1
def test_dd1_a_d6_of_seven_is_invalid_die():
    with pytest.raises(InvalidDie):
        roll((7, 1), 0, 0, 6)


# ---------------------------------------------------------------------------- DD-3


# DD-3
@pytest.mark.parametrize(("value", "as_bonus", "as_penalty"), [(-3, 0, -3), (0, 0, 0), (4, 4, 0)])
def test_dd3_bonus_and_penalty_clamp(value, as_bonus, as_penalty):
    assert bonus(value) == as_bonus
    assert penalty(value) == as_penalty


# DD-3
def test_dd3_clamped_values_in_a_roll():
    result = roll((3, 3), 1, [bonus(-2), penalty(3), penalty(-2)], 6)
    assert result.modifiers == (0, 0, -2) and result.total == 5
    with pytest.raises(RuleError):
        bonus(1.5)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- DD-4


# DD-4
def test_dd4_named_target_numbers():
    assert TARGET_NUMBERS == {"Simple": 6, "Challenging": 12, "Strenuous": 18, '"Impossible"': 20}
    assert target_number("simple") == 6
    assert target_number("Challenging") == 12
    assert target_number("STRENUOUS") == 18
    assert target_number("Impossible") == 20
    assert target_number('"Impossible"') == 20
    assert target_name(12) == "Challenging" and target_name(13) is None
    assert roll((6, 6), 0, 0, "Challenging").target_name == "Challenging"


# DD-4
def test_dd4_target_range():
    assert [target_number(n) for n in (2, 22, 30)] == [2, 22, 30]
    for bad in (1, 31, -4, 2.5, "Easy"):
        with pytest.raises(RuleError):
            target_number(bad)


# ---------------------------------------------------------------------------- DD-5


# DD-5
def test_dd5_highest_total_wins():
    result = contested(
        [ContestParty("Ann", (3, 4), 2), ContestParty("Bob", (6, 5), -1), ContestParty("Cy", (1, 1))]
    )
    assert (result.winner, result.winner_total, result.runner_up, result.runner_up_total, result.margin) == (
        "Bob",
        10,
        "Ann",
        9,
        1,
    )
    assert len(result.rounds) == 1


# DD-5
def test_dd5_ties_reroll_until_one_wins():
    parties = [
        ContestParty("Ann", (3, 4, 2), 0, advantage=True),
        ContestParty("Bob", (6,), 3, disadvantage=True),
        ContestParty("Cy", (1, 1)),
    ]
    # Round 1: Ann 9, Bob 9, Cy 2. Round 2: Ann 6, Bob 3+3 = 6. Round 3: Ann 2+2+2 = 6, Bob 5+3 = 8.
    result = contested(parties, iter([(1, 2, 3), (3,), (2, 2, 2), (5,)]))
    assert [r.highest for r in result.rounds] == [("Ann", "Bob"), ("Ann", "Bob"), ("Bob",)]
    assert [e.name for e in result.rounds[1].entries] == ["Ann", "Bob"]
    assert (result.winner, result.margin) == ("Bob", 2)


# DD-5
def test_dd5_callable_reroll_and_dice_count_checked():
    def reroll(party):
        return [6] * party.mode.count if party.name == "Ann" else [1] * party.mode.count

    result = contested([ContestParty("Ann", (3, 3)), ContestParty("Bob", (2, 4))], reroll)
    assert (result.winner, result.winner_total, result.runner_up_total) == ("Ann", 12, 2)
    with pytest.raises(RuleError, match="rolls 2d6"):
        contested([ContestParty("Ann", (3, 3)), ContestParty("Bob", (2, 4))], lambda party: [6])


# DD-5
def test_dd5_refusals():
    with pytest.raises(RuleError, match="roll again"):
        contested([ContestParty("Ann", (3, 3)), ContestParty("Bob", (2, 4))])
    with pytest.raises(RuleError, match="no dice are left"):
        contested([ContestParty("Ann", (3, 3)), ContestParty("Bob", (2, 4))], iter([(1, 1)]))
    with pytest.raises(RuleError, match="still tied"):
        contested([ContestParty("Ann", (3, 3)), ContestParty("Bob", (2, 4))], lambda party: (2, 2))
    with pytest.raises(RuleError):
        contested([ContestParty("Ann", (3, 3))])
    with pytest.raises(RuleError):
        contested([ContestParty("Ann", (3, 3)), ContestParty("Ann", (2, 4))])
    with pytest.raises(RuleError):
        contested([ContestParty("Ann", (3, 3)), ContestParty("Bob", (2, 4, 1))])


# DD-5
@given(
    st.lists(
        st.tuples(
            st.integers(-5, 5),
            st.booleans(),
            st.booleans(),
            st.lists(st.integers(1, 6), min_size=3, max_size=3),
        ),
        min_size=2,
        max_size=5,
    ),
    st.integers(0, 2**32),
)
def test_dd5_winner_is_the_unique_highest_of_the_final_round(rows, seed):
    rng = random.Random(seed)
    parties = []
    for i, (modifier, adv, dis, faces) in enumerate(rows):
        count = decision_dice_count(adv, dis)
        parties.append(ContestParty(f"p{i}", tuple(faces[:count]), modifier, adv, dis))
    result = contested(parties, lambda party: [rng.randint(1, 6) for _ in range(party.mode.count)])
    final = {e.name: e.total for e in result.rounds[-1].entries}
    assert final[result.winner] > max(t for n, t in final.items() if n != result.winner)
    assert result.margin == final[result.winner] - final[result.runner_up] >= 1


# ---------------------------------------------------------------------------- DD-6


# DD-6
def test_dd6_seed_example():
    # Stress and Vitality: halves of 3 and 1 give 2; halves of 3 and 2 give 2.5, rounded down at the end.
    first = round_down_at_end([Fraction(3, 2), Fraction(1, 2)])
    assert (first.exact, first.value) == (Fraction(2), 2)
    second = round_down_at_end([Fraction(3, 2), Fraction(2, 2)])
    assert (second.exact, second.value) == (Fraction(5, 2), 2)
    # Rounding each half first would give 1 + 0 = 1: the rule rounds once, at the end.
    assert round_down_at_end([Fraction(1, 3)] * 3).value == 1


# DD-6
def test_dd6_negative_and_mixed():
    assert round_down_at_end([Fraction(-1, 2), 0]).value == -1
    assert round_down_at_end([3, Fraction(1, 4)]).value == 3
    assert round_down_at_end([]).value == 0
    for bad in ([1.5], ["3/2"], [True]):
        with pytest.raises(RuleError):
            round_down_at_end(bad)


# DD-6
@given(st.lists(st.fractions(max_denominator=12), max_size=6))
def test_dd6_rounds_once_at_the_end(parts):
    result = round_down_at_end(parts)
    assert result.value <= result.exact < result.value + 1
    assert result.value >= sum(int(p // 1) for p in parts)


# ---------------------------------------------------------------------------- DD-7


# DD-7
def test_dd7_supply_ladder():
    assert [d.label for d in SupplyDie] == ["d12", "d10", "d8", "d6", "d4", "empty"]
    assert SupplyDie.D12.step_down() is SupplyDie.D10
    assert SupplyDie.D4.step_down() is SupplyDie.EMPTY
    assert SupplyDie.parse("D8") is SupplyDie.D8 and SupplyDie.parse("empty") is SupplyDie.EMPTY
    assert SupplyDie.parse("12") is SupplyDie.D12
    with pytest.raises(RuleError):
        SupplyDie.parse("d20")


# DD-7
@pytest.mark.parametrize("die", [d for d in SupplyDie if d is not SupplyDie.EMPTY])
def test_dd7_every_face_of_every_supply_die(die):
    for face in range(1, die.sides + 1):
        result = supply_roll(die, face)
        assert result.die is die and result.value == face
        assert result.stepped_down is (face <= 3)
        assert result.new_die is (die.step_down() if face <= 3 else die)
    with pytest.raises(InvalidDie):
        supply_roll(die, die.sides + 1)


# DD-7
def test_dd7_walk_down_to_empty():
    die = SupplyDie.D12
    steps = []
    while die is not SupplyDie.EMPTY:
        result = supply_roll(die, 1)
        steps.append(result.name)
        die = result.new_die
    assert steps == ["d12 → d10", "d10 → d8", "d8 → d6", "d6 → d4", "d4 → empty"]
    assert supply_roll(SupplyDie.D6, 4).name == "d6 holds"


# DD-7
def test_dd7_empty_cannot_be_rolled():
    with pytest.raises(RuleError, match="is empty"):
        supply_roll(SupplyDie.EMPTY, 1)
    with pytest.raises(RuleError):
        supply_roll("d8", 4)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- DD-8


# DD-8
def test_dd8_percent_every_roll_and_chance():
    for chance in range(101):
        for face in range(1, 101):
            result = percent(face, chance)
            assert result.success is (face <= chance)
            assert result.verdict is (Verdict.SUCCESS if face <= chance else Verdict.FAILURE)


# DD-8
def test_dd8_bad_inputs():
    for args in ((0, 50), (101, 50), (50, -1), (50, 101), (50.0, 50)):
        with pytest.raises(RuleError):
            percent(*args)
    assert percent(50, 50).name == "success"


def test_module_docstring_lists_public_api():
    for name in (
        "decision_dice_count",
        "roll",
        "bonus",
        "penalty",
        "contested",
        "round_down_at_end",
        "supply_roll",
    ):
        assert name in (decision.__doc__ or "")
    assert "percent" in (decision.__doc__ or "")
