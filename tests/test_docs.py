"""The generated reference: docs/commands.md and the README's tables say what the code says, or this fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from discord import app_commands

from bot.client import TabletopBot
from bot.docs import (
    COMMANDS_PAGE,
    README,
    REGENERATE,
    commands_page,
    pages,
    read_commands,
    stale,
    with_block,
    write,
)
from bot.settings import Settings
from tests.paths import ROOT
from tests.test_settings import run_bot


async def test_the_generated_pages_are_up_to_date() -> None:
    wanted = pages(await read_commands())
    assert stale(wanted) == [], f"run {REGENERATE} and commit what it wrote"


async def test_every_command_and_option_is_documented_with_its_facts() -> None:
    bot = TabletopBot(Settings(_env_file=None))  # type: ignore[call-arg]
    try:
        await bot.load_cogs()
        page = commands_page(bot.tree)
        leaves = [c for c in bot.tree.walk_commands() if isinstance(c, app_commands.Command)]
        tops = bot.tree.get_commands()
    finally:
        await bot.close()
    assert len(leaves) > 40
    sections = dict(re.findall(r"^#{2,3} /(.+?)\n(.*?)(?=^#{2,3} /|\Z)", page, re.S | re.M))
    for top in tops:
        assert f"- [`/{top.name}`](#{top.name}): " in page
        permission = "Manage Server" if top.default_permissions else "none (everyone sees it)"
        assert f"- Default permission: {permission}" in sections[top.name]
    for command in leaves:
        body = sections[command.qualified_name]
        for option in command.parameters:
            row = next(line for line in body.splitlines() if line.startswith(f"| `{option.display_name}` |"))
            assert f"| {'yes' if option.required else 'no'} |" in row
            for choice in option.choices:
                assert f"`{choice.value}`" in row
            if option.min_value is not None and abs(option.min_value) < 2**53 - 1:
                assert str(option.min_value) in row


def test_a_readme_without_its_markers_is_an_error_not_a_silent_pass() -> None:
    with pytest.raises(ValueError, match="no <!-- settings"):
        with_block("# A README\n", "settings", "| x |")
    text = "a\n<!-- settings: generated -->\nold\n<!-- /settings -->\nb\n"
    assert with_block(text, "settings", "new") == text.replace("old", "new")


def test_dotenv_example_names_every_setting() -> None:
    example = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        assert re.search(rf"^{name.upper()}=", example, re.M), f".env.example lacks {name.upper()}"


@pytest.mark.slow
def test_python_m_bot_docs_needs_no_token_or_network(tmp_path: Path) -> None:
    checked = run_bot(tmp_path, "docs", "--check")  # no .env, no token in the environment
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.strip() == "The generated pages are up to date."


def test_a_stale_page_is_found_then_rewritten(tmp_path: Path) -> None:
    for path in (COMMANDS_PAGE, README):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text((ROOT / path).read_text())
    (tmp_path / COMMANDS_PAGE).write_text((ROOT / COMMANDS_PAGE).read_text().replace("## /sheet", "## /sh"))
    readme = (tmp_path / README).read_text()
    (tmp_path / README).write_text(readme.replace("| `LOG_LEVEL` | `INFO` |", "| `LOG_LEVEL` | `DEBUG` |"))
    assert write(check_only=True, root=tmp_path) == [COMMANDS_PAGE, README]
    assert write(root=tmp_path) == [COMMANDS_PAGE, README]
    assert write(check_only=True, root=tmp_path) == []
    for path in (COMMANDS_PAGE, README):
        assert (tmp_path / path).read_text() == (ROOT / path).read_text()
