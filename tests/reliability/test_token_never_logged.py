"""Nothing the bot logs contains its token (issue 6), over a busy session at DEBUG with errors in it.

`python -m bot` runs as a subprocess with LOG_LEVEL=DEBUG and its whole stderr in a file: commands of
every loaded system, button clicks, user errors, an unexpected error with its traceback, Discord failing
(429 and 500 on callbacks, a 401 on a follow-up), then a crash and a restart. The token must appear in no
line, and neither must its secret part (the third dot-separated piece) on its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.local.fake.harness import TOKEN, SubprocessBot, World
from bot.local.fake.server import FakeDiscord, InteractionRecord

pytestmark = pytest.mark.slow


async def busy_session(sub: SubprocessBot, fake: FakeDiscord, world: World) -> None:
    guild, general = world.guild, world.general
    commands = [
        (world.alice, "help", {"system": "cards"}),
        (world.alice, "decision roll", {"stat": 2, "target": 12}),
        (world.bob, "decision percent", {"chance": 40}),
        (world.gm, "supply set", {"member": world.alice, "item": "Rations", "die": 8}),
        (world.alice, "supply roll", {"item": "Rations"}),
        (world.alice, "supply roll", {"item": "Nothing stored"}),  # a user error
        (world.carol, "dn raw", {"dn": 12}),
        (world.carol, "sysx check", {"attribute": 10, "skill_rating": 4}),
        (world.alice, "cards task", {"difficulty": 2, "level": 3}),
    ]
    answers = []
    for user, path, options in commands:
        try:
            answers.append(await sub.slash(guild, general, user, path, options))
        except AssertionError as err:  # a command this checkout does not have: the rest still runs
            if "did not sync" not in str(err) and "has no option" not in str(err):
                raise
    hands = [a.original for a in answers if any(c.endswith(":hit") for c in a.original.custom_ids())]
    for message in hands:
        await sub.click(message, "Hit", world.alice)
        await sub.click(message, "Hit", world.bob)  # a stranger's click: refused
    # the 500 first: discord.py waits 1 s after a first failure but 5 s after a third, and an answer that
    # late is one Discord has already dropped (the 3-second deadline)
    fake.fail("POST", r"/callback$", status=500, times=1)
    fake.rate_limit("POST", r"/callback$", retry_after=0.02, times=2)
    await sub.slash(guild, general, world.alice, "help", {"system": "dn"})
    fake.fail("PATCH", r"/messages/@original$", status=401, code=50001, message="Missing Access", times=None)
    await sub.slash(guild, general, world.alice, "help")
    fake.faults.clear()
    # an unexpected error with a traceback: Discord refuses the answer once (a 403 is not retried)
    fake.fail("POST", r"/callback$", status=403, code=50001, message="Missing Access", times=1)
    await sub.slash(guild, general, world.alice, "help", {"system": "rps"})
    fake.faults.clear()
    # a forged unknown choice: the tree refuses it
    data = fake.build_command_data(guild, "help", {})
    data["options"] = [{"name": "system", "type": 3, "value": "nonsense"}]
    await send_raw_subprocess(sub, fake.interaction_payload(2, data, user=world.alice, channel=general))


async def send_raw_subprocess(sub: SubprocessBot, record: InteractionRecord) -> None:
    """Send an interaction the fake's checks would refuse to build, and give the bot time to fail on it."""
    await sub.fake.dispatch("INTERACTION_CREATE", record.payload)
    await asyncio.sleep(1.0)


async def test_a_busy_session_with_errors_and_a_crash_never_logs_the_token(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    database, log = tmp_path / "bot.db", tmp_path / "bot.log"
    first = await SubprocessBot.launch(fake, database, log_path=log, LOG_LEVEL="DEBUG")
    try:
        await busy_session(first, fake, world)
    finally:
        await first.kill()
    second = await SubprocessBot.launch(fake, database, log_path=log, LOG_LEVEL="DEBUG")
    try:
        await second.slash(world.guild, world.general, world.alice, "help")
    finally:
        await second.stop()
    text = log.read_text(errors="replace")
    assert " DEBUG " in text and "Traceback" in text  # it really logged verbosely, errors included
    secret = TOKEN.split(".")[-1]
    leaks = [line for line in text.splitlines() if TOKEN in line or secret in line]
    assert leaks == [], leaks[:5]
