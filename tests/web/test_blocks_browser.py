"""Block and mute in headless Chromium against a real web server with a
real worker (tests/browser.py): mute an account (in place) and a hashtag and
see them leave the home stream; block from the profile's menu and see the blocked
side refused; undo both on the Muted and blocked page. Screenshots of the
profile menu and the page, at desktop and phone widths, light and dark, go
to test-artifacts/screenshots/."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register
from tests.waiting import eventually

from .test_pages_browser import _shoot


def _menu(ui: UI) -> None:
    """Open a profile's "…" menu (a details element: no page load)."""
    ui.driver.find_element(By.CSS_SELECTOR, ".profile-more summary").click()
    ui.wait_for(".profile-more[open] .profile-more-menu button")


def _home(ui: UI) -> str:
    ui.open("/")
    return ui.text()


def test_mute_block_and_undo_them_in_the_browser(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "carol"):
        register(userid)
    services.follow("alice", "bob")
    services.follow("alice", "carol")
    services.post_twit("bob", "Bob on rows and regions")
    services.post_twit("carol", "Carol's #tea is ready")
    ui = UI(browser, live_url)
    ui.log_in("alice")
    eventually(lambda: "Carol's #tea" in _home(ui), timeout=30, what="the fan-out")

    # Mute bob from the "…" menu of his profile.
    ui.open("/u/bob")
    _menu(ui)
    _shoot(ui, "profile-more-menu", lambda: (ui.open("/u/bob"), _menu(ui)))
    # In place: the button turns into Unmute, the page stays where it was.
    ui.press("form[action='/u/bob/mute'] button", "form[action='/u/bob/unmute']")
    assert ui.path() == "/u/bob"
    assert "Bob on rows" not in _home(ui)

    # Mute a hashtag on the Muted and blocked page, reached from the account page.
    ui.open("/account")
    ui.click("a[href='/account/muted']")
    ui.fill({"word": "#TEA"})
    ui.click("form[action='/account/muted/words'] button[type=submit]")
    assert "You muted “#TEA”" in ui.text()
    assert "Carol's #tea" not in _home(ui)
    _shoot(ui, "muted-and-blocked", lambda: ui.open("/account/muted"))

    # Undo both there: each comes back.
    ui.open("/account/muted")
    ui.click("form[action='/u/bob/unmute'] button")
    ui.click("form[action='/account/muted/words/remove'] button")
    home = _home(ui)
    assert "Bob on rows" in home and "Carol's #tea" in home

    # Block carol: she leaves the stream, and signed in she is refused.
    ui.open("/u/carol")
    _menu(ui)
    ui.click("form[action='/u/carol/block'] button")
    assert "You blocked @carol" in ui.text()
    assert browser.find_elements(By.CSS_SELECTOR, "form[action='/u/carol/unblock']")
    assert not browser.find_elements(By.CSS_SELECTOR, "form[action='/u/carol/follow']")
    assert "Carol's #tea" not in _home(ui)
    services.post_twit("alice", "Alice, not for carol")

    browser.delete_all_cookies()
    ui.log_in("carol")
    ui.open("/u/alice")
    assert "@alice has blocked you" in ui.text()
    assert "Alice, not for carol" not in ui.text()
