"""The local table in a real browser: a newcomer's first scene, played by clicking and typing only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import CHROMIUM, missing
from tests.local.launch import RunningTable, running_table
from tests.paths import ROOT

if missing() is None:
    from playwright.sync_api import Browser, expect, sync_playwright

    from tests.browser.table_page import TablePage

pytestmark = pytest.mark.slow

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT = ROOT / "docs" / "local-table.png"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RunningTable]:
    with running_table(tmp_path) as running:
        yield running


@pytest.fixture
def page(browser: Browser, table: RunningTable) -> Iterator[TablePage]:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
    errors: list[str] = []
    opened = context.new_page()
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield TablePage(opened, table.url)
    finally:
        context.close()
    assert not errors, f"the page's script failed: {errors}"


def make_sheet(page: TablePage) -> None:
    """Alice's System X character, made with the sheet commands, each picked from the command list."""
    page.command("sheet create", {"name": "Ayla", "system": "sysx"})
    page.command("sheet set-attribute", {"attribute": "Agility", "value": 12}, suggested={"name": "Ay"})
    page.command(
        "sheet set-skill", {"skill": "Stealth", "rating": 3, "parent": "Agility"}, suggested={"name": "Ay"}
    )


def test_a_sheet_made_on_the_page_drives_a_sysx_check(page: TablePage) -> None:
    page.play_as("alice")
    make_sheet(page)
    page.command("sysx check", suggested={"skill": "Ste"})  # the bot's own autocomplete offers Stealth
    rolled = page.last("used /sysx check")
    expect(rolled.locator(".reply")).to_contain_text("Alice used /sysx check")
    expect(rolled.locator(".e-title")).to_contain_text("Ayla - Stealth: ")
    expect(rolled.locator(".e-desc")).to_contain_text("against SV 15")  # compact: the breakdown is in Details
    colour = rolled.locator(".embed").evaluate("node => node.style.borderLeftColor")
    assert colour, "the embed's colour bar is drawn"
    page.click(rolled, "Details")
    details = page.page.locator("#messages .msg.ephemeral", has_text="Skill Value").last
    expect(details.locator(".e-field", has_text="Skill Value")).to_contain_text("Agility 12 + Stealth 3 = 15")


def test_a_gm_modifier_set_as_the_gm_is_applied_to_the_players_next_roll(page: TablePage) -> None:
    page.play_as("robin")
    page.command("gm modifier", {"system": "sysx", "kind": "roll", "value": "2", "member": "Alice"})
    confirmation = page.last("used /gm modifier")
    expect(confirmation.locator(".ephemeral-note")).to_contain_text("Only you can see this")

    page.play_as("alice")
    expect(page.messages().filter(has_text="used /gm modifier")).to_have_count(0)  # the GM's, not hers
    page.command("sysx check", {"sv": 12})
    rolled = page.last("used /sysx check")
    # the compact result's GM line names the modifier and who set it (issue 31)
    expect(rolled.locator(".e-desc")).to_contain_text("GM modifier: roll +2 (set by @Robin)")


def test_a_hand_dealt_with_cards_task_is_finished_with_hit_and_stand(page: TablePage) -> None:
    page.play_as("alice")
    page.command("cards task", {"difficulty": 2, "level": 3})
    hand = page.last("used /cards task")
    expect(hand.locator(".e-title")).to_contain_text("in play")
    before = hand.locator(".embed").inner_text()
    page.click(hand, "Hit")
    expect(hand.locator(".embed")).not_to_have_text(before)  # the same message, edited in place
    page.click(hand, "Stand")
    expect(hand.locator(".e-title")).not_to_contain_text("in play")
    expect(hand.get_by_role("button", name="Hit", exact=True)).to_have_count(0)


def test_odds_draws_its_chart(page: TablePage) -> None:
    page.play_as("bob")
    page.command("odds sysx", {"sv": 12})
    chart = page.last("used /odds sysx").locator(".e-image img")
    # the first chart starts the chart worker process, which a busy machine can take seconds to do
    expect(chart).to_be_visible(timeout=30_000)
    chart.evaluate("img => img.decode()")
    assert chart.evaluate("img => img.naturalWidth") > 300


def test_a_private_roll_is_shown_to_its_roller_only(page: TablePage) -> None:
    page.play_as("alice")
    page.command("sysx check", {"sv": 12, "visibility": "private"})
    secret = page.page.locator("#messages .msg.ephemeral", has_text="used /sysx check").last
    expect(secret.locator(".e-title")).to_be_visible()
    expect(page.last("made a private roll")).to_contain_text("@Alice")  # the table's notice
    expect(secret.locator(".ephemeral-note")).to_contain_text("Only you can see this")
    result = secret.locator(".e-title").inner_text()

    page.play_as("bob")
    expect(page.last("made a private roll")).to_contain_text("@Alice")
    expect(page.messages().filter(has_text=result)).to_have_count(0)
    expect(page.page.locator(".embed")).to_have_count(0)


def test_a_person_renamed_with_the_pencil_is_named_so_by_the_page_and_the_bot(page: TablePage) -> None:
    page.rename("alice", "Ayla the Bold")
    page.play_as("alice")
    expect(page.page.locator("#playing-as")).to_have_text("Playing as Ayla the Bold")
    page.command("sysx check", {"sv": 12})
    rolled = page.last("used /sysx check")
    expect(rolled.locator(".reply")).to_contain_text("Ayla the Bold used /sysx check")
    expect(rolled.locator(".e-title")).to_contain_text("Ayla the Bold - SV 12: ")


def test_screenshot_of_a_scene(page: TablePage, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The README's picture: a roll, a hand with its buttons and an /odds chart, on one screen."""
    page.page.set_viewport_size({"width": 1400, "height": 1560})
    page.play_as("robin")
    page.say("The guard turns the corner. Ayla, can you slip past him?")
    page.play_as("alice")
    make_sheet(page)
    page.command("odds sysx", {"public": True}, suggested={"skill": "Ste"})
    page.command("sysx check", suggested={"skill": "Ste"})
    page.play_as("robin")
    page.say("He hears something. Pick his pocket before he turns around: a cards task.")
    page.play_as("alice")
    page.command("cards task", {"difficulty": 2, "level": 3})
    hand = page.last("used /cards task")
    expect(hand.get_by_role("button", name="Hit", exact=True)).to_be_visible()
    chart = page.last("used /odds sysx").locator(".e-image img")
    # the chart drawn and laid out first: an image that loads after the scroll below grows the list
    expect(chart).to_have_js_property("complete", True, timeout=30_000)
    expect(chart).not_to_have_js_property("naturalHeight", 0)
    # as a reader would: the list at its newest message
    page.page.evaluate(
        "() => { const box = document.getElementById('messages'); box.scrollTop = box.scrollHeight; }"
    )
    for thing in (
        chart,
        page.last("used /sysx check").locator(".embed"),
        hand.get_by_role("button", name="Hit", exact=True),
    ):
        expect(thing).to_be_in_viewport(ratio=1, timeout=30_000)
    update = bool(request.config.getoption("--update-screenshot", default=False))
    target = SCREENSHOT if update else tmp_path / "local-table.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    page.page.mouse.move(0, 0)  # no hover highlight in the picture
    page.page.screenshot(path=str(target))
    assert target.stat().st_size > 50_000
