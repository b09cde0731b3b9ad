"""The local table's page as a person uses it, for Playwright: pick who you are, run a command by filling
its form, click a message's button, read the messages on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

WAIT_MS = 15_000  # an answer with a chart is drawn in a worker process: generous on a busy machine


class TablePage:
    def __init__(self, page: Page, url: str) -> None:
        self.page = page
        page.goto(url)
        expect(page.locator("#messages .welcome")).to_be_visible(timeout=WAIT_MS)

    # -- who and where ----------------------------------------------------------------------------------
    def play_as(self, username: str) -> None:
        """One click on the person in the member list."""
        self.page.click(f'.person[data-person="{username}"]')
        expect(self.page.locator(f'.person.me[data-person="{username}"]')).to_be_visible()

    def open_channel(self, label: str) -> None:
        self.page.click(f'.channel[data-channel="{label}"]')
        expect(self.page.locator(".channel.active")).to_have_attribute("data-channel", label)

    # -- commands ---------------------------------------------------------------------------------------
    def command(
        self,
        path: str,
        options: dict[str, Any] | None = None,
        *,
        suggested: dict[str, str] | None = None,
        files: dict[str, Path] | None = None,
    ) -> None:
        """Type ``/path``, pick it, fill ``options`` (select by value or label), pick ``suggested`` options
        from the bot's autocomplete, attach ``files``, and send; waits until the bot answered."""
        page = self.page
        page.click("#input")
        page.keyboard.type("/" + path)
        page.click(f'#picker .pick[data-path="{path}"]')
        expect(page.locator("#form")).to_be_visible()
        for name, value in (options or {}).items():
            self._fill(name, value)
        for name, typed in (suggested or {}).items():
            control = self._control(name)
            control.fill(typed)
            choice = page.locator(f'.field[data-option="{name}"] .suggest .pick').first
            expect(choice).to_be_visible(timeout=WAIT_MS)
            choice.click()
        for name, path_ in (files or {}).items():
            self._control(name).set_input_files(str(path_))
        page.click("#send")
        expect(page.locator("#form")).to_be_hidden(timeout=WAIT_MS)

    def command_error(self, path: str, options: dict[str, Any]) -> str:
        """Send a command the page or the bot refuses; the sentence shown."""
        page = self.page
        page.click("#input")
        page.keyboard.type("/" + path)
        page.click(f'#picker .pick[data-path="{path}"]')
        for name, value in options.items():
            self._fill(name, value)
        page.click("#send")
        expect(page.locator("#error")).to_be_visible(timeout=WAIT_MS)
        return page.locator("#error").inner_text()

    def _control(self, name: str) -> Locator:
        field = self.page.locator(f'.field[data-option="{name}"]')
        if field.count() == 0:
            self.page.click(f'#optional [data-add="{name}"]')
        return self.page.locator(f"#opt-{name}")

    def _fill(self, name: str, value: Any) -> None:
        control = self._control(name)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if control.evaluate("node => node.tagName") == "SELECT":
            by_value = control.evaluate("(node, v) => [...node.options].some(o => o.value === v)", text)
            control.select_option(value=text) if by_value else control.select_option(label=text)
        else:
            control.fill(text)

    # -- messages ---------------------------------------------------------------------------------------
    def messages(self) -> Locator:
        return self.page.locator("#messages .msg")

    def last(self, containing: str | None = None) -> Locator:
        """The newest message (with ``containing`` in its text), once it is on screen."""
        found = self.messages()
        if containing is not None:
            found = found.filter(has_text=containing)
        message = found.last
        expect(message).to_be_visible(timeout=WAIT_MS)
        return message

    def click(self, message: Locator, label: str) -> None:
        message.get_by_role("button", name=label, exact=True).click()

    def say(self, text: str) -> None:
        """Post a plain message in the open channel."""
        self.page.click("#input")
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")
        expect(self.last(text[:40])).to_be_visible()

    def rename(self, username: str, name: str) -> None:
        """The pencil beside a person, a new name, Enter."""
        row = self.page.locator(f'.person[data-person="{username}"]')
        row.hover()
        row.locator(".edit").click()
        row.locator("input").fill(name)
        row.locator("input").press("Enter")
        expect(self.page.locator(f'.person[data-person="{username}"] .pname')).to_have_text(name)
