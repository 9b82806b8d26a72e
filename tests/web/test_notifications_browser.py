"""Notifications in headless Chromium, against a real web server: the bell's
unread count in the top bar, opening the page clears it, and screenshots of
the home page with the badge and of the notifications page (each with the
avatar of whoever did it) at desktop and
phone widths, light and dark (test-artifacts/screenshots/pages-notifications-*)."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def _badge(ui: UI) -> str:
    found = ui.driver.find_elements(By.CSS_SELECTOR, ".nav-notify .nav-count")
    return (found[0].get_attribute("textContent") or "").replace(" unread", "") if found else ""


def test_the_bell_shows_unread_and_the_page_lists_them(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie", "dana", "erin"):
        register(userid)
    mine = services.post_twit("alice", "Row keys first, then everything else.")
    for who in ("bob", "charlie", "dana", "erin"):
        services.like(who, mine.id)
    services.post_twit("bob", "Good point.", reply_to=mine.id)
    services.post_twit(
        "charlie", "@alice which key would you use for notifications? A very long question here."
    )
    services.follow("dana", "alice")

    ui = UI(browser, live_url)
    ui.log_in("alice")
    # Four likes, a reply, a mention and a follow.
    ui.reload_until(lambda: _badge(ui) == "7", "seven unread notifications")
    _shoot(ui, "notifications-badge", lambda: ui.open("/"))

    ui.click(".nav-notify")
    assert ui.path() == "/notifications"
    lines = [
        e.text for e in browser.find_elements(By.CSS_SELECTOR, ".notification-body p:first-child")
    ]
    assert [line.split(" ·")[0] for line in lines] == [
        "Dana followed you",
        "Charlie mentioned you",
        "Bob replied to your twit",
        "Erin and 3 others liked your twit",
    ]
    # All unread when opened: shown as new, this once.
    assert len(browser.find_elements(By.CSS_SELECTOR, ".notification-new")) == 4
    ui.screenshot("notifications-new-desktop-light")
    # Each with the avatar of whoever did it last, loaded.
    avatars = browser.execute_script(
        "return [...document.querySelectorAll('.notification-who img')]"
        ".map((img) => [new URL(img.src).pathname, img.complete && img.naturalWidth > 0]);"
    )
    paths = ["/u/dana/avatar", "/u/charlie/avatar", "/u/bob/avatar", "/u/erin/avatar"]
    assert avatars == [[path, True] for path in paths]
    assert _badge(ui) == ""
    _shoot(ui, "notifications", lambda: ui.open("/notifications"))
    assert not browser.find_elements(By.CSS_SELECTOR, ".notification-new")
    ui.open("/")
    assert _badge(ui) == ""
