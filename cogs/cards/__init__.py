"""`/cards`: blackjack-style task resolution from each channel's shoe, with hand buttons.

Decisions (where the rules are silent):
- A GM modifier of kind ``difficulty`` (0..7) replaces the task difficulty the player asked for (GM-3); when
  several apply, one for this player wins over one for everyone, then the newest. All of them are consumed
  and shown.
- A voluntary hand is logged once, when it ends (its result is not known before); an involuntary hand is
  logged and delivered at once through `bot.ui.rolls.publish`. Modifiers are consumed when the hand is dealt.
- Visibility of a voluntary hand: public = the hand's message in the channel; private and gm = the hand is
  ephemeral to its owner (edited through each click's interaction) with a public one-line notice; at the end
  a gm hand's result also goes to the GM channel (or the GMs' DMs) with a Reveal button. A blind hand shows
  its owner only the face-up cards to play on; the result goes only to the GMs.
  The blind hand's owner may still Peek (BJ-4: the player sees the face-down card); they never see the
  task's difficulty, modifiers or result.
- A click re-reads the hand and the shoe and writes both with version checks (`bot.ui.hands.play`). If the
  hand moved on meanwhile (a double click), the click is refused and nothing is drawn; if only the shoe
  moved (another hand in the channel drew), the click is recomputed on the new shoe (up to 5 times).
- A hand's message is compact: whose task, how it went, the cards and total, the task (with who set a GM
  modifier); in play, what Hit, Stand and Add skill do. Details (anyone who sees the hand; a hidden hand's
  owner and the GMs) has the breakdown and the rules; the fumble chance (BJ-11) only a GM sees, in Details or
  in the GM copy of a gm or blind hand. The odds of each move are the player's, on request (Odds, ephemeral);
  a finished voluntary hand keeps Odds for the chance each move had before the last one, worked out on request
  from the hand and shoe kept with that move. An involuntary hand's chance is in its Details.
- A task names one or more characteristics (BJ-9), by commas, each with its bonus from the sheet unless
  typed (``Strength, Dexterity +2``); each is stored on the hand and shown with whether it counted.
- `/cards shuffle` (GM) reshuffles everything not in an open hand, with ``decks`` decks or, without it,
  the guild's ``decks_per_shoe``; it does not change the guild setting (that is `/setup settings`).
- `/cards resume` gives back an open hand's buttons: a private, gm or blind hand's message is ephemeral,
  and a dismissed one would leave the hand (and its cards) stuck. Its owner gets them, or a GM (GM-4), who
  can then end a hand a player left open; a public hand's answer links to its message.
- `/cards peek hand:` (GM) shows the GM the hand with its face-down card and running total, ephemerally
  (BJ-4 "on request, the GM"); it does not end the hand (only the player's choices do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .buttons import DYNAMIC_ITEMS
from .commands import Cards

if TYPE_CHECKING:
    from bot.client import TabletopBot


async def setup(bot: TabletopBot) -> None:
    """Add the cog and register its hand buttons (they work on hands dealt before a restart too)."""
    await bot.add_cog(Cards(bot))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
