"""Reposts in headless Chromium, against a real web server and a real
Celery worker (tests/browser.py): reposting with the button, and screenshots
of a home stream holding a reposted twit at desktop (1280) and phone (390)
widths, light and dark, in test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def test_repost_from_the_button_and_screenshots_of_a_home_stream(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    services.follow("charlie", "bob")
    services.follow("charlie", "alice")
    services.post_twit("bob", "Reading the HBase book on a train, chapter 4: schema design.")
    shared = services.post_twit(
        "alice",
        "Tall-narrow tables win: a page of a stream is one prefix scan, whatever the history.",
    )
    services.post_twit("alice", "Reversed timestamps put the newest row first.")
    services.like("charlie", shared.id)

    ui = UI(browser, live_url)
    ui.log_in("bob")
    ui.open(f"/u/alice/t/{shared.id}")
    ui.press(".twit-repost", ".twit-repost.is-on")
    assert "Reposted · 1" in ui.text()
    assert services.get_twit(shared.id).reposts == 1
    ui.log_out()

    ui.log_in("charlie")
    # The worker fans the repost out: wait for it to reach charlie's stream.
    ui.reload_until(lambda: "Reposted by Bob" in ui.text(), "the repost in charlie's stream")
    texts = ui.twit_texts()
    assert texts[0] == shared.text, "the repost is the newest item"
    assert texts.count(shared.text) == 1, "shown once, though alice is followed too"
    _shoot(ui, "reposts-home", lambda: ui.open("/"))
