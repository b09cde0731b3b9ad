"""System X (RULES.md SX-1..SX-12): margins, the roll chart, checks, opposed, combined, synergy, flat."""

from __future__ import annotations

import csv
import inspect
import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core import systemx
from bot.core.common import Verdict
from bot.core.errors import RuleError
from bot.core.systemx import (
    CF,
    CHART_HEADER,
    CHART_MARGINS,
    CS,
    F0,
    F1,
    F2,
    F5,
    S0,
    S2,
    S3,
    S4,
    S5,
    ChartError,
    DecidedBy,
    Margin,
    MarginStyle,
    RollChart,
    SkillCheck,
    apply_wounds,
    check,
    combine_pair,
    combined,
    flat,
    gm_modifier,
    gm_total,
    opposed,
    parse_chart,
    required_margin,
    skill_value,
    succeeds,
    synergy,
    wound_cap,
)
from tests.paths import ROOT, SHARED

VECTOR = SHARED / "vectors" / "systemx_roll_chart.csv"
FROZEN = ROOT / "data" / "systemx_roll_chart.csv"
MODEL = RollChart.model()

LETTERS = ["CF", "F5", "F4", "F3", "F2", "F1", "F0", "S0", "S1", "S2", "S3", "S4", "S5", "CS"]
SIGNED = ["CF", "-5", "-4", "-3", "-2", "-1", "-0", "+0", "+1", "+2", "+3", "+4", "+5", "CS"]
VALUES = [-10, -5, -4, -3, -2, -1, 0, 0, 1, 2, 3, 4, 5, 10]


def vector_cells() -> dict[tuple[int, int], str]:
    """The vector file read with the csv module, independently of parse_chart."""
    with VECTOR.open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == list(CHART_HEADER)
    return {(int(row[0]), roll): row[roll] for row in rows[1:] for roll in range(1, 21)}


def margins(limit: int = 40) -> st.SearchStrategy[Margin]:
    """Any margin: chart margins and results beyond them."""
    return st.one_of(
        st.sampled_from(CHART_MARGINS),
        st.integers(0, limit).map(Margin.success),
        st.integers(0, limit).map(Margin.failure),
    )


# ----------------------------------------------------------------------------------------------- Margin


def test_chart_margins_are_in_the_seed_order_with_their_values() -> None:
    # SX-7 lists the margins CF, F5..F0, S0..S5, CS; the seed gives CS = +10 and CF = -10.
    assert [m.letters() for m in CHART_MARGINS] == LETTERS
    assert [m.value for m in CHART_MARGINS] == VALUES
    for lower, higher in itertools.pairwise(CHART_MARGINS):
        assert lower < higher
        assert not higher < lower
    shuffled = list(CHART_MARGINS)
    random.Random(7).shuffle(shuffled)
    assert tuple(sorted(shuffled)) == CHART_MARGINS


def test_both_zeros_exist_and_differ() -> None:
    assert S0.value == F0.value == 0
    assert S0.is_zero and F0.is_zero
    assert S0 != F0 and F0 < S0
    assert S0.is_success and not F0.is_success and F0.is_failure


def test_success_and_critical_flags() -> None:
    for margin in CHART_MARGINS:
        assert margin.is_success == (margin.letters()[0] in "SC" and margin != CF)
        assert margin.is_critical == (margin in (CS, CF))
        assert margin.on_chart


def test_both_displays_and_the_parser() -> None:
    for margin, letters, signed in zip(CHART_MARGINS, LETTERS, SIGNED, strict=True):
        assert margin.letters() == letters == str(margin) == margin.format(MarginStyle.LETTERS)
        assert margin.signed() == signed == margin.format(MarginStyle.SIGNED)
        assert Margin.parse(letters) == margin
        assert Margin.parse(signed) == margin
        assert Margin.parse(f"  {letters.lower()} ") == margin
    assert Margin.parse("–5") == F5  # the seed writes its minus as an en dash
    assert Margin.parse("−0") == F0


@pytest.mark.parametrize("text", ["", "S", "3", "0", "X1", "S-1", "SS1", "S1234", "C", "+", "CS1", "S 3"])
def test_parser_refuses_what_is_not_a_margin(text: str) -> None:
    with pytest.raises(RuleError):
        Margin.parse(text)


@pytest.mark.parametrize("value", [3, None, 3.0, b"S3"])
def test_parser_refuses_non_text(value: object) -> None:
    with pytest.raises(RuleError):
        Margin.parse(value)


def test_margins_beyond_the_chart_order_by_value() -> None:
    s10, s12, f10, f11 = Margin.success(10), Margin.success(12), Margin.failure(10), Margin.failure(11)
    assert s12.value == 12 and not s12.is_critical and not s12.on_chart
    assert S5 < s10 < s12 < CS
    assert CF < f11 < f10 < F5
    assert str(s12) == "S12" and s12.signed() == "+12" and Margin.parse("S12") == s12 == Margin.parse("+12")
    assert str(f11) == "F11" and f11.signed() == "-11"


@pytest.mark.parametrize(
    ("value", "success", "critical"),
    [(3, False, False), (-2, True, False), (9, True, True), (-10, True, True), (10, False, True)],
)
def test_inconsistent_margins_are_refused(value: int, success: bool, critical: bool) -> None:
    with pytest.raises(RuleError):
        Margin(value, success, critical)


def test_margin_needs_whole_numbers() -> None:
    with pytest.raises(RuleError):
        Margin.success(-1)
    with pytest.raises(RuleError):
        Margin.failure(-1)
    with pytest.raises(RuleError):
        Margin(1.5, True)  # type: ignore[arg-type]
    with pytest.raises(RuleError):
        Margin(True, True)


@given(margins(), margins())
def test_order_is_total_and_follows_value(a: Margin, b: Margin) -> None:
    assert (a < b) + (a == b) + (a > b) == 1
    if a.value != b.value and not a.is_critical and not b.is_critical:
        assert (a < b) == (a.value < b.value)
    if a != b and CS in (a, b):  # SX-7: CS above every other margin, CF below
        assert max(a, b) == CS
    if a != b and CF in (a, b):
        assert min(a, b) == CF
    if a.value == b.value == 0 and not a.is_critical and not b.is_critical and a != b:
        assert min(a, b) == F0


@given(margins(200))
def test_both_displays_parse_back(margin: Margin) -> None:
    assert Margin.parse(margin.letters()) == margin
    assert Margin.parse(margin.signed()) == margin


# ------------------------------------------------------------------------------------------- Roll chart


def test_frozen_chart_file_equals_the_vector() -> None:
    # SX-5: data/'s frozen table equals the vector, cell for cell (byte for byte).
    frozen = parse_chart(FROZEN.read_text(encoding="utf-8"))
    vector = parse_chart(VECTOR.read_text(encoding="utf-8"))
    assert frozen == vector
    assert FROZEN.read_bytes() == VECTOR.read_bytes()


def test_model_equals_the_vector_in_every_cell() -> None:
    # SX-5: all 600 cells of the formula's chart against the vector read independently.
    expected = vector_cells()
    assert len(expected) == 600
    wrong = {
        (sv, roll): (MODEL.cell(sv, roll).letters(), want)
        for (sv, roll), want in expected.items()
        if MODEL.cell(sv, roll).letters() != want or systemx.model_margin(sv, roll).letters() != want
    }
    assert wrong == {}


def test_model_equals_the_frozen_file_and_writes_it() -> None:
    # SX-5: the generator writes RollChart.model().to_csv(); the file in data/ is exactly that.
    assert parse_chart(FROZEN.read_text(encoding="utf-8")) == MODEL
    assert FROZEN.read_bytes().decode("utf-8") == MODEL.to_csv()
    assert parse_chart(MODEL.to_csv()) == MODEL


def test_model_chart_is_monotone() -> None:
    # SX-5: a curvilinear model; a higher roll or a higher SV never gives a worse cell.
    for sv in range(1, 31):
        for roll in range(1, 21):
            if roll < 20:
                assert MODEL.cell(sv, roll) <= MODEL.cell(sv, roll + 1)
            if sv < 30:
                assert MODEL.cell(sv, roll) <= MODEL.cell(sv + 1, roll)


def test_a_chart_hashes_as_its_cells_and_once() -> None:  # SX-5
    # a chart keys the odds caches; equal charts are one key, in this process and after a pickle
    import pickle

    other = RollChart(MODEL.rows)
    assert other == MODEL and hash(other) == hash(MODEL) == hash(MODEL.rows)
    swap = CF if MODEL.rows[0][-1] != CF else CS
    moved = RollChart(tuple((*row[:-1], swap) if sv == 0 else row for sv, row in enumerate(MODEL.rows)))
    assert moved != MODEL and {MODEL: 1, other: 2, moved: 3} == {MODEL: 2, moved: 3}
    sent = pickle.loads(pickle.dumps(MODEL))
    assert "_hash" not in pickle.loads(pickle.dumps(other)).__dict__  # each process hashes for itself
    assert sent == MODEL and hash(sent) == hash(MODEL)


def test_a_custom_chart_accepts_signed_cells_bom_and_plain_newlines() -> None:
    lines = MODEL.to_csv().splitlines()
    signed = [lines[0]] + [
        ",".join([row.split(",")[0], *(Margin.parse(c).signed() for c in row.split(",")[1:])])
        for row in lines[1:]
    ]
    assert parse_chart("\ufeff" + "\n".join(signed) + "\n\n") == MODEL


def _chart_lines() -> list[str]:
    return MODEL.to_csv().splitlines()


def test_parse_chart_names_the_bad_cell() -> None:
    lines = _chart_lines()
    cells = lines[5].split(",")
    cells[7] = "X7"
    lines[5] = ",".join(cells)
    with pytest.raises(ChartError, match=r"Line 6 .*SV 5.*roll_7.*'X7'"):
        parse_chart("\n".join(lines))


def test_parse_chart_refuses_margins_off_the_chart() -> None:
    lines = _chart_lines()
    lines[30] = lines[30].replace("CS", "S6", 1)
    with pytest.raises(ChartError, match=r"SV 30.*'S6'"):
        parse_chart("\n".join(lines))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda ls: ls[1:], "header"),
        (lambda ls: ["sv," + ls[0].split(",", 1)[1], *ls[1:]], "header"),
        (lambda ls: ls[:-1], "30 rows"),
        (lambda ls: [*ls, ls[-1]], "30 rows"),
        (lambda ls: [*ls[:3], ls[3].rsplit(",", 1)[0], *ls[4:]], r"Line 4 .*SV 3.* 20 cells"),
        (lambda ls: [*ls[:3], ls[3] + ",S1", *ls[4:]], r"Line 4 .*22 cells"),
        (lambda ls: [*ls[:2], "9" + ls[2][1:], *ls[3:]], r"Line 3 .*must start with SV 2"),
        (lambda ls: [], "empty"),
    ],
)
def test_parse_chart_refuses_a_wrong_shape(edit: object, message: str) -> None:
    lines = edit(_chart_lines())  # type: ignore[operator]
    with pytest.raises(ChartError, match=message):
        parse_chart("\n".join(lines))


def test_parse_chart_refuses_non_text_and_huge_text() -> None:
    with pytest.raises(ChartError):
        parse_chart(b"skill_value")
    with pytest.raises(ChartError):
        parse_chart("x" * 100_000)


def test_roll_chart_validates_its_cells() -> None:
    rows = [list(row) for row in MODEL.rows]
    rows[0][0] = Margin.success(7)
    with pytest.raises(ChartError, match="SV 1, roll 1"):
        RollChart(tuple(tuple(row) for row in rows))
    with pytest.raises(ChartError):
        RollChart(MODEL.rows[:29])
    with pytest.raises(RuleError):
        MODEL.cell(31, 1)
    with pytest.raises(RuleError):
        MODEL.cell(1, 21)


# ------------------------------------------------------------------------------ Skill Value and wounds


def test_skill_value_is_attribute_plus_skill_plus_modifiers() -> None:
    # SX-1
    assert skill_value(12, 5) == 17
    assert skill_value(12, 5, 2, -1) == 18
    assert skill_value(1, 0) == 1 and skill_value(20, 10) == 30
    assert skill_value(20, 10, 8) == 38  # rule-made modifiers may pass 30; SX-3 decides later


@pytest.mark.parametrize(
    ("attribute", "skill", "modifiers"),
    [
        (0, 5, ()),
        (21, 5, ()),
        (10, -1, ()),
        (10, 11, ()),
        ("10", 5, ()),
        (10, 5.0, ()),
        (10, 5, (500,)),
        (True, 5, ()),
    ],
)
def test_skill_value_refuses_out_of_range_inputs(
    attribute: object, skill: object, modifiers: tuple[object, ...]
) -> None:
    # SX-1: attribute 1..20, skill 0..10
    with pytest.raises(RuleError):
        skill_value(attribute, skill, *modifiers)  # type: ignore[arg-type]


def test_wound_cap() -> None:
    # SX-2: below maximum wounds the SV is capped at 2 x current wounds; at full wounds, no cap.
    assert wound_cap(3, 10) == 6
    assert wound_cap(10, 10) is None
    assert wound_cap(0, 10) == 0
    assert apply_wounds(20, (3, 10)) == 6
    assert apply_wounds(5, (3, 10)) == 5
    assert apply_wounds(28, (10, 10)) == 28
    assert apply_wounds(28, None) == 28


@pytest.mark.parametrize("wounds", [(11, 10), (-1, 10), (1, 0), (1, 101), (1.0, 5), [3, 10], (3,), "3/10"])
def test_bad_wounds_are_refused(wounds: object) -> None:
    # SX-2
    with pytest.raises(RuleError):
        check(MODEL, 15, 10, wounds=wounds)  # type: ignore[arg-type]


def test_wound_cap_applies_after_the_modifiers() -> None:
    # SX-2: "after SX-1's modifiers": 10 + 5 = 15, capped at 14.
    result = check(MODEL, 10, 12, sv_modifier=5, wounds=(7, 10))
    assert (result.modified_sv, result.wound_cap, result.effective_sv) == (15, 14, 14)
    assert result.capped
    assert result.margin == MODEL.cell(14, 12)
    full = check(MODEL, 10, 12, sv_modifier=5, wounds=(10, 10))
    assert full.wound_cap is None and full.effective_sv == 15 and not full.capped


def test_no_wounds_left_means_a_critical_failure() -> None:
    # SX-2 then SX-3: 0 wounds caps the SV at 0, below 1.
    result = check(MODEL, 25, 20, wounds=(0, 8))
    assert result.margin == CF and result.decided_by is DecidedBy.SV_BELOW_1


# --------------------------------------------------------------------------------------------- A check


def test_check_reads_the_chart_for_every_cell() -> None:
    # SX-5: every (SV, roll) on the chart goes through check() to the cell.
    expected = vector_cells()
    for (sv, roll), want in expected.items():
        result = check(MODEL, sv, roll)
        assert result.decided_by is DecidedBy.CHART
        assert result.margin.letters() == want
        assert (result.effective_sv, result.modified_roll) == (sv, roll)


def test_check_carries_every_input() -> None:
    result = check(MODEL, 14, 9, roll_modifier=2, sv_modifier=-3, wounds=(9, 10), required=S2)
    assert (result.sv, result.natural_roll, result.roll_modifier, result.sv_modifier) == (14, 9, 2, -3)
    assert result.wounds == (9, 10) and result.required == S2
    assert (result.modified_sv, result.wound_cap, result.effective_sv, result.modified_roll) == (
        11,
        18,
        11,
        11,
    )
    assert result.margin == MODEL.cell(11, 11)
    with pytest.raises(AttributeError):
        result.margin = CS  # type: ignore[misc]


def test_a_custom_chart_is_used() -> None:
    # SX-5: a guild may load its own chart.
    all_s2 = RollChart(tuple(tuple(S2 for _ in range(20)) for _ in range(30)))
    assert check(all_s2, 1, 1).margin == S2
    assert check(all_s2, 0, 1).margin == CF  # SX-3 still holds


def test_sv_off_the_chart() -> None:
    # SX-3: below 1 is CF and above 30 is CS, whatever the roll; the chart is not consulted.
    low = check(MODEL, 3, 20, sv_modifier=-3)
    assert low.effective_sv == 0 and low.margin == CF and low.decided_by is DecidedBy.SV_BELOW_1
    high = check(MODEL, 28, 1, sv_modifier=3)
    assert high.effective_sv == 31 and high.margin == CS and high.decided_by is DecidedBy.SV_ABOVE_30
    assert check(MODEL, -5, 20).margin == CF
    assert check(MODEL, 45, 1).margin == CS


def test_roll_off_the_chart() -> None:
    # SX-4: a modified roll above 20 is CS, below 1 is CF.
    high = check(MODEL, 10, 18, roll_modifier=3)
    assert high.modified_roll == 21 and high.margin == CS and high.decided_by is DecidedBy.ROLL_ABOVE_20
    low = check(MODEL, 10, 2, roll_modifier=-2)
    assert low.modified_roll == 0 and low.margin == CF and low.decided_by is DecidedBy.ROLL_BELOW_1
    edge = check(MODEL, 10, 18, roll_modifier=2)
    assert edge.modified_roll == 20 and edge.decided_by is DecidedBy.CHART


def test_sv_rule_comes_before_roll_rule() -> None:
    # SX-3 before SX-4 when both are off the chart (the rules are silent; we follow their order).
    assert check(MODEL, 0, 20, roll_modifier=4).decided_by is DecidedBy.SV_BELOW_1
    assert check(MODEL, 31, 1, roll_modifier=-4).decided_by is DecidedBy.SV_ABOVE_30


def test_gm_modifiers_lie_in_minus_four_to_four() -> None:
    # SX-6: GM-set modifiers -4..+4; rule-made ones may go past that.
    assert [gm_modifier(v) for v in range(-4, 5)] == list(range(-4, 5))
    for bad in (-5, 5, 9, "2", 1.0, True):
        with pytest.raises(RuleError):
            gm_modifier(bad)
    assert check(MODEL, 10, 10, sv_modifier=7, roll_modifier=-6).modified_sv == 17


def test_gm_modifiers_of_one_kind_add_up_within_minus_four_to_four() -> None:
    # SX-6: the GM's own modifiers on one check stay within -4..+4 however many applied
    assert gm_total([]) == 0
    assert gm_total([2, 1]) == 3
    assert gm_total([4, 4, 4]) == 4 and gm_total([-4, -3]) == -4
    assert gm_total([4, -4, 3]) == 3
    with pytest.raises(RuleError):
        gm_total([1, 5])


def test_required_margin_decides_success() -> None:
    # SX-7: success when margin >= required; the margin is reported unchanged.
    for margin_index, required_index in itertools.product(range(14), range(14)):
        margin, required = CHART_MARGINS[margin_index], CHART_MARGINS[required_index]
        assert succeeds(margin, required) == (margin_index >= required_index)
    roll = next(r for r in range(1, 21) if MODEL.cell(20, r) == S2)
    two = check(MODEL, 20, roll, required=S3)
    assert two.margin == S2 and not two.succeeded and two.verdict is Verdict.FAILURE
    assert check(MODEL, 20, roll, required=S2).succeeded
    assert check(MODEL, 20, roll).required == S0


def test_required_margin_verdicts_and_limits() -> None:
    # SX-7
    assert check(MODEL, 31, 5, required=CS).verdict is Verdict.CRITICAL_SUCCESS
    met_cf = check(MODEL, 0, 5, required=CF)
    assert met_cf.margin == CF and met_cf.succeeded and met_cf.verdict is Verdict.SUCCESS
    missed = check(MODEL, 0, 5)
    assert not missed.succeeded and missed.verdict is Verdict.CRITICAL_FAILURE
    assert required_margin("+2") == S2
    for bad in (Margin.success(6), Margin.failure(6), "S9", 2, None):
        with pytest.raises(RuleError):
            check(MODEL, 15, 10, required=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("roll", [0, 21, -1, 100, "7", 7.0, True, None, (7, 8)])
def test_a_natural_roll_is_a_d20_face(roll: object) -> None:
    # SX-4 takes a natural d20: 1..20 only.
    with pytest.raises(RuleError):
        check(MODEL, 15, roll)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [{"sv": 500}, {"sv": -500}, {"sv": "15"}, {"sv": 15.0}, {"sv_modifier": 500}, {"roll_modifier": -500}],
)
def test_absurd_inputs_are_refused(kwargs: dict[str, object]) -> None:
    # SX-1 / SX-3: an SV of 500 is a typo, not a critical success.
    args: dict[str, object] = {"sv": 15, "natural_roll": 10} | kwargs
    with pytest.raises(RuleError):
        check(MODEL, **args)  # type: ignore[arg-type]


def test_check_needs_a_chart() -> None:
    with pytest.raises(RuleError):
        check("chart", 15, 10)  # type: ignore[arg-type]


wounds_strategy = st.one_of(
    st.none(), st.integers(1, 20).flatmap(lambda m: st.tuples(st.integers(0, m), st.just(m)))
)


@given(
    st.integers(-35, 60),
    st.integers(1, 20),
    st.integers(-25, 25),
    st.integers(-25, 25),
    wounds_strategy,
)
def test_a_higher_roll_or_sv_never_gives_a_worse_margin(
    sv: int, roll: int, roll_modifier: int, sv_modifier: int, wounds: tuple[int, int] | None
) -> None:
    # SX-2..SX-5 together are monotone in the roll and in the SV.
    base = check(MODEL, sv, roll, roll_modifier=roll_modifier, sv_modifier=sv_modifier, wounds=wounds).margin
    if roll < 20:
        assert (
            check(
                MODEL, sv, roll + 1, roll_modifier=roll_modifier, sv_modifier=sv_modifier, wounds=wounds
            ).margin
            >= base
        )
    if sv < 60:
        assert (
            check(
                MODEL, sv + 1, roll, roll_modifier=roll_modifier, sv_modifier=sv_modifier, wounds=wounds
            ).margin
            >= base
        )
    if roll_modifier < 25:
        assert (
            check(
                MODEL, sv, roll, roll_modifier=roll_modifier + 1, sv_modifier=sv_modifier, wounds=wounds
            ).margin
            >= base
        )


# ---------------------------------------------------------------------------------------------- Opposed


def oracle_opposed(actor: str, target: str) -> str:
    """SX-8 restated over the letter names, independently of the module."""
    crit = {"CS", "CF"}
    if actor == target and actor in crit:
        return "S0" if actor == "CS" else "F0"
    if actor in crit:
        return actor
    if target == "CS":
        return "F0"
    if target == "CF":
        return actor

    def number(name: str) -> int:
        return int(name[1:]) * (1 if name[0] == "S" else -1)

    result = number(actor) - number(target)
    if result == 0:
        return actor[0] + "0"
    return f"S{result}" if result > 0 else f"F{-result}"


def test_opposed_every_pair() -> None:
    # SX-8: all 196 pairs of chart margins.
    for actor, target in itertools.product(CHART_MARGINS, repeat=2):
        assert opposed(actor, target).letters() == oracle_opposed(actor.letters(), target.letters()), (
            actor,
            target,
        )


@pytest.mark.parametrize(
    ("actor", "target", "expected"),
    [
        (S2, S2, S0),
        (F1, F1, F0),
        (CS, CS, S0),
        (CF, CF, F0),
        (CS, S3, CS),
        (CS, CF, CS),
        (CF, CS, CF),
        (CF, F5, CF),
        (S3, CS, F0),
        (F2, CS, F0),
        (S3, CF, S3),
        (F2, CF, F2),
        (S0, F0, S0),
        (F0, S0, F0),
        (S0, S2, F2),
        (S5, F5, Margin.success(10)),
        (F5, S5, Margin.failure(10)),
    ],
)
def test_opposed_cases(actor: Margin, target: Margin, expected: Margin) -> None:
    # SX-8, including the rule's examples S2 - S2 = S0 and F1 - F1 = F0
    assert opposed(actor, target) == expected


def test_opposed_beyond_the_chart_stays_exact() -> None:
    # SX-8: S5 - F5 is +10 but not a critical.
    assert not opposed(S5, F5).is_critical
    assert opposed(Margin.success(12), S2) == Margin.success(10)
    with pytest.raises(RuleError):
        opposed("S3", S2)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------- Combined


def oracle_pair(a: str, b: str) -> str:
    """SX-9's pair rule restated over letter names."""
    names = {a, b}
    if names == {"CS", "CF"}:
        return "S0"
    if "CS" in names:
        return "CS"
    if "CF" in names:
        return "CF"
    total = sum(int(n[1:]) * (1 if n[0] == "S" else -1) for n in (a, b))
    if total == 0:
        return "S0" if "S" in (a[0], b[0]) else "F0"
    return f"S{total}" if total > 0 else f"F{-total}"


def test_combined_every_pair() -> None:
    # SX-9: all 196 pairs, both through combine_pair and combined().
    for a, b in itertools.product(CHART_MARGINS, repeat=2):
        want = oracle_pair(a.letters(), b.letters())
        assert combine_pair(a, b).letters() == want, (a, b)
        assert combined([a, b]).margin.letters() == want


def test_combined_every_triple_folds_left() -> None:
    # SX-9: 2,744 triples; the result is the pair rule applied to (first two) then the third.
    for a, b, c in itertools.product(CHART_MARGINS, repeat=3):
        first = oracle_pair(a.letters(), b.letters())
        result = combined((a, b, c))
        assert result.partials[0].letters() == first
        assert result.margin.letters() == oracle_pair(first, c.letters()) == result.partials[1].letters()


def test_combined_seed_example() -> None:
    # SX-9: (CS, CF, S3) -> (S0, S3) -> S3
    result = combined([CS, CF, S3])
    assert result.partials == (S0, S3)
    assert result.margin == S3
    assert result.margins == (CS, CF, S3)


def test_combined_is_order_sensitive_only_with_cs_and_cf() -> None:
    # SX-9: a CS and a CF cancel only when they meet in a pair, so their place matters.
    assert combined([CS, CF, S3]).margin == S3
    assert combined([S3, CS, CF]).margin == S0
    assert combined([CF, S3, CS]).margin == S0


def test_combined_goes_past_five_without_clipping() -> None:
    # SX-9: the sum is kept (S12), not clipped to S5 or turned into CS.
    assert combined([S4, S4, S4]).margin == Margin.success(12)
    assert combined([F5, F5]).margin == Margin.failure(10)
    assert combined([S2, F2]).margin == S0
    assert combined([F0, F0]).margin == F0
    assert combined([F1, F1, S2]).margin == S0


@given(margins(), margins())
def test_combine_pair_is_symmetric(a: Margin, b: Margin) -> None:
    # SX-9: the pair rule does not care which actor is first.
    assert combine_pair(a, b) == combine_pair(b, a)


@given(st.lists(margins().filter(lambda m: not m.is_critical), min_size=2, max_size=6), st.randoms())
def test_combined_without_criticals_ignores_order(actors: list[Margin], rng: random.Random) -> None:
    # SX-9: without criticals the fold is the sum; a zero sum is S0 exactly when some actor succeeded.
    shuffled = list(actors)
    rng.shuffle(shuffled)
    total = sum(m.value for m in actors)
    result = combined(actors).margin
    assert result == combined(shuffled).margin
    assert result.value == total
    if total == 0:
        assert result.is_success == any(m.is_success for m in actors)


@given(st.lists(margins().filter(lambda m: m != CF), min_size=2, max_size=6), st.randoms())
def test_combined_with_cs_and_no_cf_is_cs_in_any_order(actors: list[Margin], rng: random.Random) -> None:
    # SX-9: any CS gives CS unless a CF meets it.
    actors = [*actors, CS]
    rng.shuffle(actors)
    assert combined(actors).margin == CS


@given(st.lists(margins().filter(lambda m: m != CS), min_size=1, max_size=6), st.randoms())
def test_combined_with_cf_and_no_cs_is_cf_in_any_order(actors: list[Margin], rng: random.Random) -> None:
    # SX-9
    actors = [*actors, CF]
    rng.shuffle(actors)
    assert combined(actors).margin == CF


@pytest.mark.parametrize("actors", [[], [S3], (S3,), "S3S4", [S3, "S4"], None])
def test_combined_refuses_fewer_than_two_or_non_margins(actors: object) -> None:
    with pytest.raises(RuleError):
        combined(actors)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- Synergy


def test_synergy_carries_each_margin_into_the_next_sv() -> None:
    # SX-10: the first check gets +0; each next adds the previous margin; the chain's margin is the last.
    steps = [SkillCheck(15, label="Lore"), SkillCheck(10, label="Craft"), SkillCheck(12, sv_modifier=1)]
    dice = [20, 10, 15]
    result = synergy(MODEL, steps, dice)
    first = MODEL.cell(15, 20)
    second = MODEL.cell(10 + first.value, 10)
    third = MODEL.cell(12 + 1 + second.value, 15)
    assert [link.carried for link in result.links] == [0, first.value, second.value]
    assert [link.result.margin for link in result.links] == [first, second, third]
    assert [link.step for link in result.links] == steps
    assert result.margin == third == result.links[-1].result.margin
    assert result.succeeded == (third >= S0)


def test_synergy_counts_criticals_as_ten() -> None:
    # SX-10: CS = +10, CF = -10
    result = synergy(MODEL, [SkillCheck(30), SkillCheck(5)], [20, 10])
    assert result.links[0].result.margin == CS
    assert result.links[1].carried == 10 and result.links[1].result.effective_sv == 15
    fumble = synergy(MODEL, [SkillCheck(0), SkillCheck(25)], [20, 10])
    assert fumble.links[0].result.margin == CF
    assert fumble.links[1].carried == -10 and fumble.links[1].result.effective_sv == 15


def test_synergy_applies_wounds_after_the_carried_margin() -> None:
    # SX-10 then SX-2: the SV with the carried margin is capped.
    result = synergy(MODEL, [SkillCheck(30), SkillCheck(12, wounds=(6, 10))], [20, 10])
    assert result.links[1].result.modified_sv == 22 and result.links[1].result.effective_sv == 12


def test_synergy_required_margin_applies_to_the_chain() -> None:
    # SX-10 with SX-7
    result = synergy(MODEL, [SkillCheck(30), SkillCheck(30)], [20, 20], required=CS)
    assert result.margin == CS and result.succeeded and result.verdict is Verdict.CRITICAL_SUCCESS
    assert result.links[0].result.required == S0 and result.links[1].result.required == CS


@pytest.mark.parametrize(
    ("steps", "dice"),
    [
        ([SkillCheck(15)], [10]),
        ([SkillCheck(15), SkillCheck(12)], [10]),
        ([SkillCheck(15), SkillCheck(12)], [10, 11, 12]),
        ([SkillCheck(15), SkillCheck(12)], [10, 21]),
        ([SkillCheck(15), 12], [10, 11]),
        ([SkillCheck(15), SkillCheck(500)], [10, 11]),
        ([SkillCheck(15), SkillCheck(12, sv_modifier="2")], [10, 11]),  # type: ignore[arg-type]
        ([SkillCheck(15)] * 21, [10] * 21),
    ],
)
def test_synergy_refuses_bad_chains(steps: list[object], dice: list[object]) -> None:
    # SX-10 and SX-12: one d20 per check, no more, no less.
    with pytest.raises(RuleError):
        synergy(MODEL, steps, dice)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------- Flat


def test_flat_every_roll_and_value() -> None:
    # SX-11: the event happens when the d20 is strictly under the set value.
    for roll, value in itertools.product(range(1, 21), range(1, 22)):
        result = flat(roll, value)
        assert result.happened == (roll < value)
        assert result.verdict is (Verdict.SUCCESS if roll < value else Verdict.FAILURE)
        assert (result.natural_roll, result.value) == (roll, value)
    assert not flat(1, 1).happened and flat(20, 21).happened


@pytest.mark.parametrize(("roll", "value"), [(21, 10), (0, 10), (5, 0), (5, 22), ("5", 10), (5, 10.0)])
def test_flat_refuses_bad_inputs(roll: object, value: object) -> None:
    # SX-11
    with pytest.raises(RuleError):
        flat(roll, value)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ SX-12


def test_one_die_per_task_and_no_reroll() -> None:
    # SX-12: a check takes exactly one natural d20 and the module offers no reroll.
    parameters = inspect.signature(check).parameters
    dice_parameters = [name for name in parameters if "roll" in name and "modifier" not in name]
    assert dice_parameters == ["natural_roll"]
    assert not any("reroll" in name.lower() or "re_roll" in name.lower() for name in dir(systemx))
    with pytest.raises(RuleError):
        check(MODEL, 15, [10, 12])  # type: ignore[arg-type]
    with pytest.raises(RuleError):
        synergy(MODEL, [SkillCheck(15), SkillCheck(12)], [10, 11, 19])


# -- SX-7 as decided: the criticals stand outside the numbered margins ---------------------------------


@pytest.mark.parametrize("k", [5, 6, 10, 11, 12, 15, 40, 999])
def test_cs_is_above_every_numbered_success(k: int) -> None:
    # SX-7: CS is above S11, S12 ... however large the margin; CF below every failure (F11, F40 ...).
    success, failure = Margin.success(k), Margin.failure(k)
    assert success < CS and not success >= CS and max(success, CS) == CS
    assert failure > CF and not failure <= CF and min(failure, CF) == CF
    assert sorted([CS, success, S0, F0, failure, CF]) == [CF, failure, F0, S0, success, CS]


def test_s11_and_s12_sort_below_cs_and_f_large_above_cf() -> None:
    # SX-7: a combined check's S12 and the opposed S10 stay below CS; F10, F11 stay above CF.
    s11, s12, f10, f11 = Margin.success(11), Margin.success(12), Margin.failure(10), Margin.failure(11)
    big = combined([S5, S5, S2]).margin
    assert big == s12 and big < CS
    assert opposed(S5, F5) == Margin.success(10) < CS
    assert sorted([CS, s12, s11, CF, f10, f11]) == [CF, f11, f10, s11, s12, CS]
    # the value a rule does arithmetic with is unchanged (CS = +10, CF = -10)
    assert CS.value == 10 < s11.value and CF.value == -10 > f11.value


@pytest.mark.parametrize("k", [0, 5, 10, 11, 12, 20])
def test_a_required_cs_is_met_only_by_cs(k: int) -> None:
    # SX-7: a required margin of CS is met by CS alone, never by a numbered success however large;
    # a required CF is met by every margin, the largest failures included.
    assert not succeeds(Margin.success(k), CS)
    assert succeeds(CS, CS)
    assert succeeds(Margin.failure(k), CF) and succeeds(CF, CF)
    assert not succeeds(CF, F5)


def test_a_required_cs_in_a_check_is_met_only_by_cs() -> None:
    # SX-7 through ``check``: every face of the d20 at SV 30 succeeds against CS only when it gives CS.
    for roll in range(1, 21):
        result = check(MODEL, 30, roll, required=CS)
        assert result.succeeded == (result.margin == CS)
        assert result.verdict is (Verdict.CRITICAL_SUCCESS if result.margin == CS else Verdict.FAILURE)
    high = check(MODEL, 20, 18, roll_modifier=8, required=CS)  # SX-4: modified roll 26 -> CS
    assert high.margin == CS and high.succeeded
