"""The invite link: the OAuth2 scopes and exactly the permissions the bot's features need.

`NEEDS` is the one place that says which permissions the bot asks for and why; the invite URL, the table in
the README (written by `python -m bot docs`) and the start-up log line all come from it. Each entry names
the signs in the code of the request that needs it (`signs`), so a test can check the list against what
the bot really sends: a new kind of request without its permission, or a permission whose feature is gone,
fails it.

Answers to an interaction (the response, follow-ups, edits of the original) go through the interaction's
token, not the channel: they need no Send Messages or View Channels, but since Discord applies the bot's
own permissions to them, embeds and files in them need Embed Links and Attach Files.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

#: `bot` puts the bot user in the server; `applications.commands` lets the server see its slash commands.
SCOPES: tuple[str, ...] = ("bot", "applications.commands")


@dataclass(frozen=True)
class Need:
    """One permission the invite asks for: its flag in `discord.Permissions`, its name in Discord, why."""

    flag: str
    label: str
    why: str
    signs: tuple[str, ...]  # text in bot/ or cogs/ that shows a request needing it


NEEDS: tuple[Need, ...] = (
    Need(
        "view_channel",
        "View Channels",
        "Post a GM's copy of a hidden roll in the GM channel, post a revealed roll in its channel, and "
        "update a sustained action's message: the bot's own posts, refused in a channel it cannot see.",
        ("get_partial_messageable(",),
    ),
    Need(
        "send_messages",
        "Send Messages",
        "The same posts: a GM's copy in the GM channel and a revealed roll are new messages of the bot, "
        "not answers to a command.",
        ("get_partial_messageable(",),
    ),
    Need(
        "send_messages_in_threads",
        "Send Messages in Threads",
        "A roll made in a thread is revealed in that thread.",
        ("get_partial_messageable(",),
    ),
    Need(
        "embed_links",
        "Embed Links",
        "Every result, sheet and help page is an embed; without this permission Discord drops the embeds "
        "from the bot's messages.",
        ("discord.Embed(",),
    ),
    Need(
        "attach_files",
        "Attach Files",
        "/odds sends a chart, /log export the roll log and /sheet export a sheet, each as a file.",
        ("discord.File(",),
    ),
)

#: Permissions a bot like this is often given, that this one does not use, and the sign in the code that
#: would show it started to (a test fails when one appears without the permission being added to `NEEDS`).
NOT_NEEDED: dict[str, tuple[str, ...]] = {
    "administrator": (),
    "read_message_history": ("fetch_message(", ".history(", "reference=", ".reply("),
    "mention_everyone": ("AllowedMentions(everyone=True", "AllowedMentions.all("),
    "use_external_emojis": ("<:", "<a:"),
    "add_reactions": ("add_reaction(",),
    "manage_messages": (".pin(", "delete_messages(", "clear_reactions(", ".purge("),
    "create_public_threads": ("create_thread(",),
    "manage_roles": ("add_roles(", "remove_roles("),
    "manage_channels": ("create_text_channel(", "set_permissions("),
}


def permissions() -> discord.Permissions:
    """Exactly the permissions of `NEEDS`."""
    return discord.Permissions(**{need.flag: True for need in NEEDS})


def invite_url(client_id: int) -> str:
    """The link a server owner opens to add the bot, with its commands and `permissions()`."""
    return discord.utils.oauth_url(client_id, permissions=permissions(), scopes=SCOPES)


def permissions_table() -> str:
    """The README's table of the permissions the invite asks for (Markdown)."""
    lines = ["| Permission | Why the bot needs it |", "| --- | --- |"]
    lines += [f"| {need.label} (`{need.flag}`) | {need.why} |" for need in NEEDS]
    return "\n".join(lines)
