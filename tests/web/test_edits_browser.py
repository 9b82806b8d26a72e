"""Editing a twit in headless Chromium against a real web server with a real
worker (tests/browser.py): the author edits from the twit's page, the
follower's home stream shows the new text with "edited", and the mark opens
the history. Screenshots of the edit form, the edited twit in the stream and
the history, at desktop and phone widths, light and dark, go to
test-artifacts/screenshots/."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register
from tests.waiting import eventually

from .test_pages_browser import _shoot


def _home(ui: UI) -> str:
    ui.open("/")
    return ui.text()


def test_edit_a_twit_and_read_its_history_in_the_browser(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob"):
        register(userid)
    services.follow("bob", "alice")
    twit = services.post_twit("alice", "HBase keeps three verisons by default #hbase")
    page = f"/u/alice/t/{twit.id}"

    ui = UI(browser, live_url)
    ui.log_in("alice")
    ui.open(page)
    ui.click("a.edit-link")
    assert ui.path() == f"{page}/edit"
    _shoot(ui, "edit-twit", lambda: ui.open(f"{page}/edit"))
    ui.open(f"{page}/edit")
    box = browser.find_element(By.NAME, "text")
    box.clear()
    box.send_keys("HBase keeps one version by default since 0.96 #hbase")
    ui.click(".edit-twit button[type=submit]")
    assert ui.path() == page
    assert "Your twit is edited." in ui.text()
    assert "since 0.96" in ui.text()

    ui.log_out()
    ui.log_in("bob")
    eventually(lambda: "since 0.96" in _home(ui), timeout=30, what="the edited text")
    assert "verisons" not in _home(ui)
    _shoot(ui, "edited-in-stream", lambda: ui.open("/"))
    ui.click(f"#t-{twit.id} a.twit-edited")
    assert ui.path() == f"{page}/history"
    items = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".history-item .twit-text")]
    assert items == [
        "HBase keeps one version by default since 0.96 #hbase",
        "HBase keeps three verisons by default #hbase",
    ]
    _shoot(ui, "twit-history", lambda: ui.open(f"{page}/history"))
