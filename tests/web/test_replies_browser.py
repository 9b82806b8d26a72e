"""Replies in headless Chromium, against a real web server (tests/browser.py):
replying from a permalink, and screenshots of a permalink with a chain above
and replies below at desktop (1280) and phone (390) widths, light and dark,
in test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def test_reply_from_a_permalink_and_screenshots_of_a_thread(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    root = services.post_twit("alice", "Which HBase row key would you pick for a thread?")
    middle = services.post_twit(
        "bob", "The parent's key, then forward time: one scan, oldest first.", reply_to=root.id
    )
    shown = services.post_twit(
        "alice",
        "And the reply's own key parts after it, so two replies never clash.",
        reply_to=middle.id,
    )
    for who, text in [
        ("charlie", "Agreed. Reversed time would read the thread backwards."),
        ("bob", "And the count sits on the parent's row, beside likes and reposts later."),
    ]:
        services.post_twit(who, text, reply_to=shown.id)

    ui = UI(browser, live_url)
    ui.log_in("bob")
    ui.open(f"/u/alice/t/{shown.id}")
    assert ui.twit_texts()[:3] == [root.text, middle.text, shown.text]
    ui.fill({"text": "Posted from the browser."})
    ui.click(".reply-box button[type=submit]")
    (mine,) = [
        t for t in services.replies(shown.id).items if t.userid == "bob" and "browser" in t.text
    ]
    assert ui.path() == f"/u/bob/t/{mine.id}"
    assert "Your reply is posted." in ui.text()
    assert ui.twit_texts()[-1] == "Posted from the browser."

    _shoot(ui, "replies-permalink", lambda: ui.open(f"/u/alice/t/{shown.id}"))
    services.delete_twit("alice", root.id)
    _shoot(ui, "replies-deleted-parent", lambda: ui.open(f"/u/bob/t/{middle.id}"))
    assert "This twit was deleted." in ui.text()
    _shoot(ui, "replies-home", lambda: ui.open("/"))
