"""`/rps`: Base minus 2d10 (RULES.md RPS-1..RPS-10) as slash commands and a sustained pool's button.

- `/rps check`: a skill (+ parent, or one of its alternates) or an attribute from the roller's active RPS
  sheet, or a raw Base; a named difficulty, an extra modifier, forgoing the roll (RPS-6).
- `/rps resisted`: 2..6 parties, each a member (active sheet + skill/attribute, or a raw Base) or a named
  NPC with a Base; ties re-roll among the tied (RPS-7).
- Second tries (RPS-9): a failed check carries a GM's "Grant a second try" button (`/rps grant` does the
  same for a check the GM did not see); the GM picks a modifier -5..+5 and the player who failed gets a
  "Try again" button, for them only, once, at the failed check's Base.
- `/rps sustained start|roll|status|stop`: per-channel Success Pools (RPS-8) with a "Roll next check"
  button (`rpspool:<pool_id>:roll`) for the pool's owner or a GM (GM-4).
GM-3: pending `difficulty` modifiers add to the Base of the roller's next check(s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .buttons import DYNAMIC_ITEMS
from .commands import Rps

if TYPE_CHECKING:
    from bot.client import TabletopBot


async def setup(bot: TabletopBot) -> None:
    """Add the cog and its buttons (they work on messages sent before a restart too)."""
    await bot.add_cog(Rps(bot))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
