"""The bot: a `commands.AutoShardedBot` with minimal intents that opens the store, loads the cogs and syncs
commands.

It runs as many shards as Discord asks for (one per 2,500 servers), or those SHARD_COUNT and SHARD_IDS
give this process; only the process that runs shard 0 syncs the commands.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import random
from collections.abc import Sequence
from typing import Any

import discord
import yarl
from discord.ext import commands

from bot.invite import invite_url
from bot.settings import Settings
from bot.store import Store
from bot.ui.details import DetailsButton
from bot.ui.options import TableTree
from bot.ui.visibility import RevealButton
from bot.ui.workers import Workers

log = logging.getLogger(__name__)

#: The cogs the bot loads, by dotted name, in order. A new system cog adds its module here; its
#: ``async def setup(bot)`` adds the cog and registers its own DynamicItems with ``bot.add_dynamic_items``.
COGS: tuple[str, ...] = (
    "cogs.errors",
    "cogs.help",
    "cogs.decision",
    "cogs.supply",
    "cogs.cards",
    "cogs.sysx",
    "cogs.dn",
    "cogs.rps",
    "cogs.sheets",
    "cogs.gm",
    "cogs.log",
    "cogs.odds",
    "cogs.roll",
)

#: DynamicItems shared by every system (the GM copy's Reveal button, a roll's Details button).
SHARED_DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (RevealButton, DetailsButton)

COMMAND_HASH_KEY = "command_tree_hash"
DEV_GUILD_KEY = "dev_guild_synced"  # the server the last DEV_GUILD_ID sync went to


def point_at(api_base: str) -> None:
    """Send every REST call and the gateway to ``api_base`` (a fake Discord in tests), not discord.com."""
    base = api_base.rstrip("/")
    discord.http.Route.BASE = f"{base}/api/v10"
    ws_base = "ws" + base.removeprefix("http")  # http -> ws, https -> wss
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"{ws_base}/gateway/")


def make_rng(seed: int | None) -> random.Random:
    """Seeded dice for demos and tests; the system's secure source otherwise."""
    return random.Random(seed) if seed is not None else random.SystemRandom()


def intents() -> discord.Intents:
    """Only what slash commands and buttons need: guilds (no message content, no members)."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    return chosen


def freeze_start_up() -> None:
    """Freeze start-up's objects (modules, cogs, the guild cache), after set-up and once guilds are cached:
    they live as long as the process, so the collector's full passes, which pause the loop, skip them."""
    gc.collect()
    gc.freeze()
    log.debug("%d start-up objects frozen for the garbage collector.", gc.get_freeze_count())


class TabletopBot(commands.AutoShardedBot):
    """The bot a table uses; ``bot.store`` and ``bot.rng`` are what cogs need."""

    store: Store
    workers: Workers
    chart_workers: Workers

    def __init__(
        self,
        settings: Settings,
        *,
        cogs: Sequence[str] = COGS,
        rng: random.Random | None = None,
        freeze_gc: bool = False,
        warm_workers: bool = False,
        **options: Any,
    ) -> None:
        if settings.shard_ids is not None:  # else discord.py runs every shard of shard_count
            options["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=options.pop("tree_cls", TableTree),
            shard_count=settings.shard_count,
            **options,
        )
        self.settings = settings
        self.rng: random.Random = rng if rng is not None else make_rng(settings.dice_seed)
        self.cog_names: tuple[str, ...] = tuple(cogs)
        self.synced: str = "not yet"
        self.invite_logged = False
        # `freeze_start_up` is for a process that runs this one bot (python -m bot): in a process that
        # starts many (the tests), what a frozen bot leaves behind would never be collected.
        self.freeze_gc = freeze_gc
        self.warm_workers = warm_workers  # start the odds worker at start-up, not with the first hand
        self._warming: asyncio.Task[None] | None = None
        self._closing: asyncio.Future[None] | None = None
        if settings.discord_api_base:
            point_at(settings.discord_api_base)

    async def setup_hook(self) -> None:
        self.store = await Store.open(self.settings.database())
        # processes, each pool started by its first job: the slow exact odds, and /odds charts apart
        # (a worker that has drawn a chart holds matplotlib, ~45 MB: one such worker is enough)
        self.workers = Workers()
        self.chart_workers = Workers()
        if self.warm_workers:  # beside the gateway's connect; charts stay lazy (matplotlib, rarely asked)
            self._warming = asyncio.create_task(self.workers.warm(), name="tabletop: warm workers")
        await self.load_cogs()
        if self.settings.syncs_commands():
            self.synced = await self.sync_commands()
        else:  # several processes split the shards: one of them sends the commands
            self.synced = "synced by the process that runs shard 0"
        log.info("Loaded %d cogs; commands: %s.", len(self.cog_names), self.synced)
        if self.freeze_gc:
            freeze_start_up()

    async def load_cogs(self) -> None:
        """The cogs and the shared buttons: the whole command tree (no connection or store needed)."""
        for name in self.cog_names:
            await self.load_extension(name)
        self.add_dynamic_items(*SHARED_DYNAMIC_ITEMS)

    async def on_ready(self) -> None:
        """Guilds cached (again, after a reconnect): freeze them with the rest (see `freeze_start_up`)."""
        if self.freeze_gc:
            freeze_start_up()
        log.info(
            "Ready as %s in %d guilds, on shards %s of %s.",
            self.user,
            len(self.guilds),
            ",".join(map(str, sorted(self.shards))),
            self.shard_count,
        )
        if not self.invite_logged and self.application_id is not None:
            self.invite_logged = True  # once: on_ready comes again after every reconnect
            log.info("Invite link: %s", invite_url(self.application_id))

    async def sync_commands(self) -> str:
        """Sync to DEV_GUILD_ID at once when set; else globally, only when the tree changed since then.

        The stored hash says what this database last sent Discord; it is wrong when the commands changed
        on Discord's side (another copy of the bot, another tool): FORCE_SYNC (`--sync`) sends them anyway.
        """
        dev_key = f"{DEV_GUILD_KEY}:{self.application_id}"
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            await self.store.meta.set(dev_key, str(guild.id))
            if self.settings.force_sync:
                log.warning("FORCE_SYNC (--sync) is ignored: DEV_GUILD_ID is set, so commands sync there.")
            return f"synced to guild {self.settings.dev_guild_id}"
        await self.clear_dev_guild(dev_key)
        digest = self.tree_hash()
        key = f"{COMMAND_HASH_KEY}:{self.application_id}"
        if not self.settings.force_sync and await self.store.meta.get(key) == digest:
            return "unchanged, not synced"
        await self.tree.sync()
        await self.store.meta.set(key, digest)
        return "synced globally (forced)" if self.settings.force_sync else "synced globally"

    async def clear_dev_guild(self, dev_key: str) -> None:
        """Remove the copy of the commands a former DEV_GUILD_ID got: its server would list each twice."""
        left = await self.store.meta.get(dev_key)
        if left is None:
            return
        guild = discord.Object(id=int(left))
        try:
            await self.tree.sync(guild=guild)  # no guild commands in this tree: Discord's list becomes empty
        except discord.HTTPException as err:  # the bot left that server: nothing to remove
            log.warning("Could not remove the commands of former DEV_GUILD_ID %s: %s", left, err)
        else:
            log.info("Removed the commands synced to former DEV_GUILD_ID %s.", left)
        await self.store.meta.delete(dev_key)

    def tree_hash(self) -> str:
        """A hash of the global command payload Discord would receive."""
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands()]
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    async def close(self) -> None:
        """Close once: a second call (SIGTERM's, then `async with`'s) waits for the first to finish, so the
        database is closed before the loop is."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close_once())
        await asyncio.shield(self._closing)

    async def _close_once(self) -> None:
        try:
            if self.user is None and not self.shards:
                # never logged in (the docs build the tree only): discord.py's AutoShardedClient.close
                # needs what login sets up, so only what exists is closed
                for name in list(self.extensions):
                    await self.unload_extension(name)
                await self.http.close()
            else:
                await super().close()
        finally:
            if self._warming is not None:
                self._warming.cancel()  # a pool still opening is stopped once open (`Workers._current`)
            for pool in ("workers", "chart_workers"):
                workers = self.__dict__.pop(pool, None)
                if workers is not None:
                    workers.close()
            store = self.__dict__.pop("store", None)  # close once, even when close() runs twice
            if store is not None:
                await store.close()
