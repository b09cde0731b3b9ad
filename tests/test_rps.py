"""RPS rule engine: RULES.md RPS-1..RPS-10, the seed's examples, exhaustive and property tests."""

import itertools
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core import rps
from bot.core.common import Verdict
from bot.core.errors import IllegalMove, InvalidDie, RuleError
from bot.core.rps import (
    DIFFICULTIES,
    Difficulty,
    Doubles,
    Outcome,
    PoolState,
    ResistedParty,
    Skill,
    SustainedPool,
    advance,
    attribute_base,
    check,
    difficulty,
    forgo,
    resisted,
    second_try_modifier,
    skill_base,
    start_pool,
    success_word,
    total_modifiers,
)
from bot.ui.rps import time_text
from tests.paths import SHARED

D10 = range(1, 11)


# ---------------------------------------------------------------------------- RPS-1 bases


# RPS-1
def test_rps1_attribute_base_is_twice_attribute_plus_modifiers():
    assert attribute_base(6) == 12
    assert attribute_base(6, 2) == 14
    assert attribute_base(6, [2, -4, difficulty("Tricky")]) == 8
    assert attribute_base(0, difficulty(-20)) == -20


# RPS-1
def test_rps1_skill_base_is_skill_plus_parent_plus_modifiers():
    # The seed's Daniela: Tracking 4, Intuition 6, difficulty +2 -> Base 12.
    assert skill_base(4, 6, difficulty("Moderately hard")) == 12
    assert skill_base(4, 6) == 10
    assert skill_base(4, 6, [1, 1, Difficulty(4, "Somewhat difficult")]) == 16


# RPS-1
def test_rps1_skill_alternate_parents_chosen_per_check():
    lock = Skill("Pick Lock", 5, "Agility", ("Intellect",))
    attributes = {"Agility": 7, "Intellect": 4}
    assert lock.parent() == "Agility"
    assert lock.parent("intellect") == "Intellect"
    assert lock.base(attributes) == 12
    assert lock.base(attributes, "Intellect") == 9
    assert lock.base(attributes, "Intellect", difficulty("Tricky")) == 7
    with pytest.raises(RuleError, match="cannot use 'Strength'"):
        lock.parent("Strength")
    with pytest.raises(RuleError, match="no attribute"):
        lock.base({"Agility": 7}, "Intellect")


# RPS-1
def test_rps1_skill_refuses_bad_descriptions():
    with pytest.raises(RuleError):
        Skill("", 3, "Agility")
    with pytest.raises(RuleError):
        Skill("Astronomy", 100, "Intellect")
    with pytest.raises(RuleError):
        Skill("Astronomy", 3, "")
    with pytest.raises(RuleError):
        Skill("Astronomy", 3, "Intellect", ["Agility"])  # type: ignore[arg-type]


def _seed_difficulty_table():
    text = next((SHARED / "seeds").glob("002_*.txt")).read_text()
    table = text.split("DifficultyDescription", 1)[1].split("[2.2.5]", 1)[0]
    rows = []
    for line in table.strip().splitlines():
        match = re.fullmatch(r"([+-]\d+)(.+)", line.strip())
        if match:
            rows.append((int(match.group(1)), match.group(2).strip()))
    return rows


# RPS-1
def test_rps1_difficulties_are_exactly_the_seeds_table():
    seed_rows = _seed_difficulty_table()
    assert len(seed_rows) == 18
    assert [(d.modifier, d.name) for d in DIFFICULTIES] == seed_rows
    assert DIFFICULTIES[0] == Difficulty(20, "No way to fail")
    assert DIFFICULTIES[-1] == Difficulty(-20, "Beyond impossible")


# RPS-1
def test_rps1_difficulty_lookup_by_name_or_modifier():
    for row in DIFFICULTIES:
        assert difficulty(row.name) is row
        assert difficulty(row.name.upper()) is row
        assert difficulty(row.modifier) is row
    with pytest.raises(RuleError):
        difficulty("Moderately hard-ish")
    with pytest.raises(RuleError):
        difficulty(3)


# RPS-1
def test_rps1_modifiers_add_up():
    assert total_modifiers([]) == 0
    assert total_modifiers(5) == 5
    assert total_modifiers([difficulty("Very difficult"), difficulty("Tricky"), 3]) == -5


# RPS-1
@pytest.mark.parametrize(
    "call",
    [
        lambda: attribute_base(-1),
        lambda: attribute_base(100),
        lambda: attribute_base(3.5),
        lambda: attribute_base(True),
        lambda: attribute_base(5, 500),
        lambda: attribute_base(5, ["two"]),
        lambda: skill_base(4, -1),
        lambda: total_modifiers("12"),
    ],
)
def test_rps1_bad_base_inputs_raise_rule_error(call):
    with pytest.raises(RuleError):
        call()


# ---------------------------------------------------------------------------- RPS-2..RPS-5, RPS-10


# RPS-10
def test_rps10_seed_example_base_12():
    # RPS-10, RPS-2: Daniela's two tracking checks.
    first = check(12, 1, 7)
    assert (first.sl, first.outcome, first.verdict, first.word) == (
        4,
        Outcome.SUCCESS,
        Verdict.SUCCESS,
        "acceptable",
    )
    second = check(12, 4, 9)
    assert (second.sl, second.outcome, second.verdict, second.word) == (
        -1,
        Outcome.FAILURE,
        Verdict.FAILURE,
        None,
    )
    assert first.dice == (1, 7) and first.roll == 8 and first.base == 12


# RPS-3
@pytest.mark.parametrize(
    ("sl", "word"),
    [
        *[(-3, None), (0, None), (1, "acceptable"), (4, "acceptable"), (5, "good"), (9, "good")],
        *[
            (10, "impressive"),
            (14, "impressive"),
            (15, "spectacular"),
            (16, "miraculous"),
            (40, "miraculous"),
        ],
    ],
)
def test_rps3_success_words(sl, word):
    assert success_word(sl) == word


# RPS-3
def test_rps3_near_miss_and_failure():
    assert check(10, 4, 6).outcome is Outcome.NEAR_MISS
    assert check(10, 4, 6).name == "near miss"
    assert check(10, 5, 6).outcome is Outcome.FAILURE
    assert check(10, 2, 6).name == "success, acceptable"


# RPS-4
def test_rps4_double_ones_both_ends():
    auto = check(2, 1, 1)
    assert (auto.doubles, auto.sl, auto.verdict, auto.raw_sl) == (
        Doubles.AUTOMATIC_SUCCESS,
        1,
        Verdict.SUCCESS,
        0,
    )
    assert auto.name == "automatic success, acceptable"
    assert check(-5, 1, 1).sl == 1
    crit = check(3, 1, 1)
    assert (crit.doubles, crit.sl, crit.verdict) == (Doubles.CRITICAL_SUCCESS, 6, Verdict.CRITICAL_SUCCESS)
    assert check(12, 1, 1).sl == 15 and check(12, 1, 1).name == "critical success, spectacular"


# RPS-5
def test_rps5_double_tens_both_ends():
    auto = check(21, 10, 10)
    assert (auto.doubles, auto.sl, auto.outcome, auto.verdict) == (
        Doubles.AUTOMATIC_FAILURE,
        0,
        Outcome.NEAR_MISS,
        Verdict.FAILURE,
    )
    fumble = check(20, 10, 10)
    assert (fumble.doubles, fumble.sl, fumble.verdict, fumble.fumble) == (
        Doubles.CRITICAL_FAILURE,
        0,
        Verdict.CRITICAL_FAILURE,
        True,
    )
    assert check(12, 10, 10).sl == -8
    assert check(12, 10, 10).name == "critical failure (fumble)"


# RPS-2
@pytest.mark.parametrize("dice", [(11, 3), (0, 3), (3, 11), (3, -1), (2.0, 3), (True, 3), ("5", 3)])
def test_rps2_bad_d10_raises_rule_error(dice):
    with pytest.raises(RuleError):
        check(12, *dice)


# RPS-2
def test_rps2_d10_of_eleven_is_invalid_die():
    with pytest.raises(InvalidDie):
        check(12, 11, 1)
    with pytest.raises(RuleError):
        check(5000, 1, 2)


def _reference(base, d1, d2):
    """An independent reading of RPS-2..RPS-5: (sl, verdict, word)."""
    if d1 == 1 and d2 == 1:
        if base <= 2:
            return 1, Verdict.SUCCESS, "acceptable"
        sl, verdict = base + 3, Verdict.CRITICAL_SUCCESS
    elif d1 == 10 and d2 == 10:
        sl = 0 if base >= 21 else base - 20
        verdict = Verdict.FAILURE if base >= 21 else Verdict.CRITICAL_FAILURE
    else:
        sl = base - d1 - d2
        verdict = Verdict.SUCCESS if sl > 0 else Verdict.FAILURE
    words = ["acceptable"] * 4 + ["good"] * 5 + ["impressive"] * 5 + ["spectacular"]
    word = None if sl <= 0 else (words[sl - 1] if sl <= 15 else "miraculous")
    return sl, verdict, word


# RPS-2
def test_rps2_to_rps5_exhaustive_every_base_and_pair():
    # RPS-2, RPS-3, RPS-4, RPS-5: every Base -5..40 x every (d10, d10).
    seen = 0
    for base in range(-5, 41):
        for d1, d2 in itertools.product(D10, D10):
            result = check(base, d1, d2)
            assert (result.sl, result.verdict, result.word) == _reference(base, d1, d2), (base, d1, d2)
            assert result.raw_sl == base - d1 - d2
            assert result.outcome is (
                Outcome.SUCCESS if result.sl > 0 else Outcome.NEAR_MISS if result.sl == 0 else Outcome.FAILURE
            )
            seen += 1
    assert seen == 46 * 100


# RPS-2
@given(st.integers(-50, 60), st.integers(-50, 60), st.integers(1, 10), st.integers(1, 10))
def test_rps2_higher_base_never_lower_sl(a, b, d1, d2):
    low, high = sorted((a, b))
    assert check(high, d1, d2).sl >= check(low, d1, d2).sl


def test_rps_check_is_frozen():
    result = check(12, 1, 7)
    with pytest.raises(AttributeError):
        result.sl = 9  # type: ignore[misc]


# ---------------------------------------------------------------------------- RPS-6


# RPS-6
def test_rps6_forgo_above_15():
    assumed = forgo(16)
    assert (assumed.sl, assumed.assumed, assumed.dice, assumed.verdict) == (1, True, None, Verdict.SUCCESS)
    assert assumed.name == "assumed success, acceptable"
    with pytest.raises(RuleError, match="not above 15"):
        forgo(15)


# RPS-6
def test_rps6_gm_may_grant_at_any_base():
    granted = forgo(-3, granted_by_gm=True)
    assert granted.sl == 1 and granted.granted_by_gm
    with pytest.raises(RuleError):
        forgo(16, granted_by_gm="yes")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- RPS-7


def _party(name, sl, base=10):
    """A party whose first pair gives exactly ``sl`` at ``base`` (no doubles)."""
    roll = base - sl
    for d1 in D10:
        d2 = roll - d1
        if 1 <= d2 <= 10 and d1 != d2:
            return ResistedParty(name, base, (d1, d2))
    raise AssertionError(f"no pair for SL {sl} at Base {base}")


# RPS-7
def test_rps7_seed_poker_example():
    result = resisted([_party("Johnny", -3), _party("Franky", 1), _party("Richard", -2)])
    assert (result.winner, result.winner_sl, result.runner_up, result.runner_up_sl, result.sl) == (
        "Franky",
        1,
        "Richard",
        -2,
        3,
    )
    assert len(result.rounds) == 1 and result.rounds[0].decided


# RPS-7
def test_rps7_seed_beer_example():
    result = resisted([_party("Franky", -5), _party("Johnny", -1)])
    assert (result.winner, result.sl) == ("Johnny", 4)


# RPS-7
def test_rps7_ties_reroll_and_final_round_subtracts():
    parties = [_party("Ann", 3, base=12), _party("Bob", 3, base=9), _party("Cid", -4)]
    # Round 2: Ann (12) and Bob (9) tie again at SL 0; round 3: Ann 12-5=7, Bob 9-4=5.
    result = resisted(parties, iter([(6, 6), (5, 4), (2, 3), (1, 3)]))
    assert [r.highest for r in result.rounds] == [("Ann", "Bob"), ("Ann", "Bob"), ("Ann",)]
    assert [n for n, _ in result.rounds[1].checks] == ["Ann", "Bob"]  # Cid dropped out
    assert result.rounds[1].checks[0][1].base == 12  # same Bases in re-rolls
    assert (result.winner, result.winner_sl, result.runner_up, result.runner_up_sl, result.sl) == (
        "Ann",
        7,
        "Bob",
        5,
        2,
    )


# RPS-7
def test_rps7_callable_reroll_gets_the_party():
    asked = []

    def reroll(party):
        asked.append(party.name)
        return (1, 2) if party.name == "Bob" else (5, 5)

    result = resisted([_party("Ann", 0), _party("Bob", 0), _party("Cid", -1)], reroll)
    assert asked == ["Ann", "Bob"]
    assert (result.winner, result.sl) == ("Bob", 7 - 0)


# RPS-7
def test_rps7_tie_without_more_dice_is_a_rule_error():
    with pytest.raises(RuleError, match="roll again"):
        resisted([_party("Ann", 0), _party("Bob", 0)])
    with pytest.raises(RuleError, match="no dice are left"):
        resisted([_party("Ann", 0), _party("Bob", 0)], iter([(2, 3)]))


# RPS-7
def test_rps7_endless_tie_is_capped():
    with pytest.raises(RuleError, match="still tied"):
        resisted([_party("Ann", 0), _party("Bob", 0)], lambda party: (2, 3))


# RPS-7
@pytest.mark.parametrize(
    "parties",
    [
        [],
        [ResistedParty("Ann", 10, (1, 2))],
        [ResistedParty("Ann", 10, (1, 2)), ResistedParty("Ann", 10, (3, 2))],
        [ResistedParty("Ann", 10, (1, 2)), ResistedParty("", 10, (3, 2))],
        [ResistedParty("Ann", 10, (1, 11)), ResistedParty("Bob", 10, (3, 2))],
        [ResistedParty("Ann", 10, (1,)), ResistedParty("Bob", 10, (3, 2))],
        [ResistedParty("Ann", 10, (1, 2)), ("Bob", 10, (3, 2))],
    ],
)
def test_rps7_bad_parties_raise_rule_error(parties):
    with pytest.raises(RuleError):
        resisted(parties, iter([]))


# RPS-7
@given(
    st.lists(st.tuples(st.integers(-5, 30), st.integers(1, 10), st.integers(1, 10)), min_size=2, max_size=6),
    st.integers(0, 2**32),
)
def test_rps7_winner_is_unique_highest_of_final_round(rows, seed):
    rng = random.Random(seed)
    parties = [ResistedParty(f"p{i}", base, (d1, d2)) for i, (base, d1, d2) in enumerate(rows)]
    result = resisted(parties, lambda party: (rng.randint(1, 10), rng.randint(1, 10)))
    final = dict(result.final_round.checks)
    assert result.sl == final[result.winner].sl - max(c.sl for n, c in final.items() if n != result.winner)
    assert result.sl >= 1
    for earlier, later in itertools.pairwise(result.rounds):
        assert [n for n, _ in later.checks] == list(earlier.highest)


# ---------------------------------------------------------------------------- RPS-8


# RPS-8
def test_rps8_pool_adds_successes_and_completes():
    pool = start_pool(goal=5, base=12, minutes_per_check=2)
    assert (pool.pool, pool.checks, pool.state) == (0, 0, PoolState.RUNNING)
    pool = advance(pool, check(12, 1, 7))  # SL 4
    assert (pool.pool, pool.checks, pool.state, pool.last_change) == (4, 1, PoolState.RUNNING, 4)
    pool = advance(pool, check(12, 4, 9))  # SL -1: takes 1
    assert (pool.pool, pool.last_change) == (3, -1)
    pool = advance(pool, check(12, 5, 5))  # SL 2 -> 5 >= goal
    assert (pool.pool, pool.checks, pool.state, pool.minutes_spent) == (5, 3, PoolState.COMPLETED, 6)
    with pytest.raises(IllegalMove):
        advance(pool, check(12, 1, 7))


# RPS-8
def test_rps8_no_loss_takes_nothing():
    pool = start_pool(goal=3, base=5, minutes_per_check=10, no_loss=True)
    pool = advance(pool, check(5, 4, 6))
    pool = advance(pool, check(5, 3, 3))
    assert (pool.pool, pool.checks, pool.minutes_spent, pool.state) == (0, 2, 20, PoolState.RUNNING)


# RPS-8
def test_rps8_below_minus_goal_fails():
    pool = start_pool(goal=1, base=5, minutes_per_check=1)
    pool = advance(pool, check(5, 4, 6))
    assert (pool.pool, pool.state) == (-1, PoolState.RUNNING)  # -1 is not below -1
    pool = advance(pool, check(5, 4, 6))
    assert (pool.pool, pool.state) == (-2, PoolState.FAILED)
    with pytest.raises(IllegalMove, match="already failed"):
        advance(pool, check(5, 1, 1))


# RPS-8
def test_rps8_fumble_fails_even_with_no_loss():
    pool = advance(start_pool(goal=10, base=12, minutes_per_check=1, no_loss=True), check(12, 10, 10))
    assert (pool.pool, pool.state) == (0, PoolState.FAILED)
    # An automatic failure (Base 21+) is not a fumble: it takes 1 and goes on.
    pool = advance(start_pool(goal=10, base=25, minutes_per_check=1), check(25, 10, 10))
    assert (pool.pool, pool.state) == (-1, PoolState.RUNNING)


# RPS-8
def test_rps8_assumed_success_adds_one():
    pool = advance(start_pool(goal=1, base=16, minutes_per_check=1), forgo(16))
    assert (pool.pool, pool.state) == (1, PoolState.COMPLETED)


# RPS-8
@pytest.mark.parametrize(
    "kwargs",
    [
        {"goal": 0, "base": 10, "minutes_per_check": 1},
        {"goal": -2, "base": 10, "minutes_per_check": 1},
        {"goal": 1.5, "base": 10, "minutes_per_check": 1},
        {"goal": 3, "base": 10, "minutes_per_check": -1},
        {"goal": 3, "base": 999, "minutes_per_check": 1},
        {"goal": 3, "base": 10, "minutes_per_check": 1, "no_loss": "no"},
    ],
)
def test_rps8_bad_pool_raises_rule_error(kwargs):
    with pytest.raises(RuleError):
        start_pool(**kwargs)


# RPS-8
def test_rps8_bad_state_raises_rule_error():
    with pytest.raises(RuleError):
        SustainedPool(goal=3, base=10, minutes_per_check=1, state="running")  # type: ignore[arg-type]
    with pytest.raises(RuleError):
        advance(start_pool(3, 10, 1), 5)  # type: ignore[arg-type]


# RPS-8
@given(
    st.integers(1, 30),
    st.integers(-5, 30),
    st.booleans(),
    st.lists(st.tuples(st.integers(1, 10), st.integers(1, 10)), max_size=80),
)
def test_rps8_pool_state_machine(goal, base, no_loss, rolls):
    pool = start_pool(goal, base, 3, no_loss)
    for d1, d2 in rolls:
        made = check(base, d1, d2)
        if pool.finished:
            with pytest.raises(IllegalMove):
                advance(pool, made)
            continue
        before = pool
        pool = advance(pool, made)
        expected = made.sl if made.sl >= 1 else (0 if no_loss else -1)
        assert pool.pool == before.pool + expected
        assert pool.checks == before.checks + 1 and pool.minutes_spent == pool.checks * 3
        if made.fumble or pool.pool < -goal:
            assert pool.state is PoolState.FAILED
        elif pool.pool >= goal:
            assert pool.state is PoolState.COMPLETED
        else:
            assert pool.state is PoolState.RUNNING


# ---------------------------------------------------------------------------- RPS-9


# RPS-9
def test_rps9_second_try_after_failure_only():
    assert second_try_modifier(check(12, 4, 9), 3) == 3
    assert second_try_modifier(check(10, 4, 6), -5) == -5
    assert second_try_modifier(check(12, 10, 10), 5) == 5
    with pytest.raises(RuleError, match="succeeded"):
        second_try_modifier(check(12, 1, 7), 1)
    with pytest.raises(RuleError):
        second_try_modifier(forgo(20), 1)
    for bad in (6, -6, 1.0, None):
        with pytest.raises(RuleError):
            second_try_modifier(check(12, 4, 9), bad)


def test_module_docstring_lists_public_api():
    for name in (
        "attribute_base",
        "skill_base",
        "check",
        "forgo",
        "resisted",
        "advance",
        "second_try_modifier",
    ):
        assert name in (rps.__doc__ or "")


def test_base_parts_kept_as_plain_data_read_back_the_same() -> None:
    # RPS-9: a second try adds to the Base its first roll was built from, read back from these records
    from dataclasses import asdict

    from bot.ui.rps import BasePart, part_records, stored_spec

    parts = [BasePart("Climb", 3), BasePart("Strength", 12), BasePart("Hard", -2, modifier=True, shown="x")]
    records = part_records(parts)
    assert records == [asdict(part) for part in parts]
    assert stored_spec(13, "Climb", records).parts == tuple(parts)


def test_a_sustained_action_s_time_reads_in_hours_or_days() -> None:  # RPS-8
    assert time_text(90, "minutes") == "90 minutes"
    assert time_text(150, "minutes") == "150 minutes (about 2 hours)"
    assert time_text(2_000_000, "minutes") == "2,000,000 minutes (about 1,389 days)"
    assert time_text(3, "weeks") == "3 weeks"
