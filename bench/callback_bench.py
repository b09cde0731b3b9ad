"""CPU of one interaction callback: discord.py's way (its webhook adapter on an aiohttp session) against the
bot's (`bot.ui.callbacks.CallbackClient`), in the same run, to the same server.

The server is an aiohttp app in a child process on loopback that answers every callback 204, as Discord
does when the bot does not ask for the message back. Each client sends N callbacks, C at a time, after a
warm-up, alternating over several rounds; the figure is this process's CPU time per callback (the server's
is not counted). Run from the repository root:

    .venv/bin/python bench/callback_bench.py [-n 20000] [-c 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
import discord  # noqa: E402
from discord.http import Route  # noqa: E402
from discord.webhook.async_ import AsyncWebhookAdapter  # noqa: E402

from bot.ui.callbacks import CallbackClient  # noqa: E402

SERVER = """
import sys
from aiohttp import web
async def callback(request):
    await request.read()
    return web.Response(status=204)
app = web.Application()
app.router.add_post("/api/v10/interactions/{id}/{token}/callback", callback)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""
PAYLOAD = {
    "type": 4,
    "data": {
        "embeds": [{"title": "RPS Climb: success", "fields": [{"name": "Base", "value": "15 = 12 + 3"}] * 5}],
        "allowed_mentions": {"parse": []},
    },
}
UA = "DiscordBot (bench, 1)"


async def _burst(send: Callable[[int], Awaitable[None]], n: int, concurrency: int) -> float:
    """µs of this process's CPU per callback over ``n`` callbacks, ``concurrency`` at a time."""
    counter = iter(range(n))

    async def worker() -> None:
        for index in counter:
            await send(index)

    start = time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return (time.process_time() - start) / n * 1e6


async def main(n: int, concurrency: int, rounds: int, port: int) -> None:
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)])
    try:
        Route.BASE = f"http://127.0.0.1:{port}/api/v10"
        async with aiohttp.ClientSession() as session:  # as discord.py's HTTPClient makes it
            for _ in range(100):  # wait for the server
                try:
                    async with session.get(f"http://127.0.0.1:{port}/") as response:
                        await response.read()
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.05)
            adapter = AsyncWebhookAdapter()
            ours = CallbackClient()

            async def through_discord_py(index: int) -> None:
                route = Route(
                    "POST",
                    "/interactions/{webhook_id}/{webhook_token}/callback",
                    webhook_id=10**18 + index,
                    webhook_token="token",
                )
                await adapter.request(route, session, payload=PAYLOAD)

            async def through_ours(index: int) -> None:
                await ours.post(10**18 + index, "token", PAYLOAD, user_agent=UA)

            clients = {"discord.py (aiohttp session)": through_discord_py, "bot.ui.callbacks": through_ours}
            for send in clients.values():
                await _burst(send, 2000, concurrency)  # warm-up: connections opened, code paths hot
            figures: dict[str, list[float]] = {name: [] for name in clients}
            for _ in range(rounds):
                for name, send in clients.items():
                    figures[name].append(await _burst(send, n, concurrency))
            ours.close()
    finally:
        server.terminate()
        server.wait()
    print(f"{n} callbacks a round, {concurrency} at a time, {rounds} rounds; client CPU per callback, µs")
    base = statistics.median(figures["discord.py (aiohttp session)"])
    for name, values in figures.items():
        median = statistics.median(values)
        rounds_text = " ".join(f"{v:.1f}" for v in values)
        print(f"  {name:32s} median {median:6.1f}   rounds {rounds_text}   {median / base:.2f}x")
    print(f"rerun: python bench/callback_bench.py -n {n} -c {concurrency} --rounds {rounds}")


if __name__ == "__main__":
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("-n", type=int, default=20000)
    parser.add_argument("-c", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=8799)
    options = parser.parse_args()
    if discord.__version__.split(".")[:2] != ["2", "7"]:
        print(f"note: written against discord.py 2.7, running {discord.__version__}")
    asyncio.run(main(options.n, options.c, options.rounds, options.port))
