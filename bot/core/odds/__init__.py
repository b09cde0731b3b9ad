"""Exact odds for every rule system: distributions as Fractions, never simulation.

Modules, one function per question (see each module's docstring):
    ``distribution``  ``Distribution`` (ordered outcomes with exact probabilities; at_least, where, ...)
    ``systemx``       check_distribution / check_odds / success_chance / opposed_distribution /
                      combined_distribution / synergy_distribution / flat_chance
    ``dn``            dn_odds
    ``rps``           check_odds / resisted_odds / sustained_odds / check_count_distribution
    ``decision``      total_distribution / roll_odds / contested_odds / supply_odds / percent_chance
    ``cards``         involuntary_odds / voluntary_decision / plan_voluntary
    ``contest``       highest_wins (shared by resisted RPS and contested decision dice)
    ``format``        percent and one-line summaries per system
"""

from bot.core.odds.distribution import Distribution
from bot.core.odds.format import (
    cards_summary,
    decision_summary,
    dn_summary,
    hand_decision_summary,
    percent,
    rps_summary,
    supply_summary,
    sustained_summary,
    systemx_summary,
)

__all__ = [
    "Distribution",
    "cards_summary",
    "decision_summary",
    "dn_summary",
    "hand_decision_summary",
    "percent",
    "rps_summary",
    "supply_summary",
    "sustained_summary",
    "systemx_summary",
]
