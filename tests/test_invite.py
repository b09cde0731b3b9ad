"""The invite link: both scopes, the client id, and exactly the permissions the bot's requests need."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import discord

from bot.invite import NEEDS, NOT_NEEDED, SCOPES, invite_url, permissions
from tests.paths import ROOT

CLIENT_ID = 123456789012345678
# View Channels, Send Messages, Embed Links, Attach Files, Send Messages in Threads (Discord's bit numbers)
EXPECTED = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 38)


def test_the_url_carries_both_scopes_the_client_id_and_the_permission_integer() -> None:
    url = urlsplit(invite_url(CLIENT_ID))
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    query = parse_qs(url.query)
    assert query["client_id"] == [str(CLIENT_ID)]
    assert query["scope"] == ["bot applications.commands"]
    assert query["permissions"] == [str(EXPECTED)]
    assert SCOPES == ("bot", "applications.commands")


def test_nothing_more_than_needed_and_never_administrator() -> None:
    granted = permissions()
    assert granted.value == EXPECTED
    assert not granted.administrator and not granted.manage_guild and not granted.mention_everyone
    bits = [discord.Permissions(**{need.flag: True}).value for need in NEEDS]
    assert len(set(bits)) == len(NEEDS) and all(bit.bit_count() == 1 for bit in bits)  # each once, alone
    assert sum(bits) == granted.value


def readme_permissions() -> dict[str, str]:
    """The README's permission table, parsed: flag -> label."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- permissions:.*?-->\n(.*?)<!-- /permissions -->", text, re.S)
    assert block is not None, "README.md has no permissions table"
    rows = [line for line in block.group(1).splitlines() if line.startswith("| ") and "`" in line]
    found = {}
    for row in rows:
        match = re.match(r"\| (?P<label>[^|(]+?) \(`(?P<flag>\w+)`\) \| (?P<why>[^|]+) \|$", row)
        assert match is not None, f"unreadable row: {row}"
        found[match["flag"]] = match["label"]
    return found


def test_the_readme_documents_exactly_the_invite_permissions() -> None:
    documented = readme_permissions()
    assert discord.Permissions(**dict.fromkeys(documented, True)) == permissions()
    assert documented == {need.flag: need.label for need in NEEDS}


def _source() -> str:
    files = [*sorted((ROOT / "bot").rglob("*.py")), *sorted((ROOT / "cogs").rglob("*.py"))]
    return "\n".join(path.read_text() for path in files if path.name != "invite.py")


def test_the_code_sends_what_needs_exactly_the_listed_permissions() -> None:
    """Each permission asked for has its request in the code, and no request needs one not asked for."""
    code = _source()
    for need in NEEDS:
        assert any(sign in code for sign in need.signs), f"nothing in the code needs {need.label} any more"
    for flag, signs in NOT_NEEDED.items():
        used = [sign for sign in signs if sign in code]
        assert not used, f"the code now uses {used}: add {flag} to bot.invite.NEEDS, with why"
    assert not set(NOT_NEEDED) & {need.flag for need in NEEDS}
