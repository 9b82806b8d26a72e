"""Quotes in headless Chromium against a real web server with a real
worker (tests/browser.py): quote a twit from the Quote action under it, see
the card in the quote and in a follower's home stream, the count and the
quote on the quoted twit's page, and "This twit was deleted" once it goes.
Screenshots of the Quote page, a stream with cards and the quoted twit's
page, at desktop and phone widths, light and dark, go to
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


def test_quote_a_twit_and_see_its_card_count_and_deletion_in_the_browser(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "carol"):
        register(userid)
    services.follow("carol", "bob")
    quoted = services.post_twit(
        "alice", "Row keys are the only index HBase has: design them for the reads you make."
    )
    ui = UI(browser, live_url)
    ui.log_in("bob")
    page = f"/u/alice/t/{quoted.id}"
    ui.open(page)
    ui.click(".permalink .twit-quote")
    assert ui.path() == f"{page}/quote"
    assert "Row keys are the only index" in ui.text()
    _shoot(ui, "quote-compose", lambda: ui.open(f"{page}/quote"))
    ui.fill({"text": "The first HBase lesson, in one line."})
    ui.click(".composer button[type=submit]")
    mine = services.timeline("bob").items[0]
    assert ui.path() == f"/u/bob/t/{mine.id}"
    assert "Your quote is posted." in ui.text()
    card = browser.find_element(By.CSS_SELECTOR, ".permalink .quote-card")
    assert "Row keys are the only index" in card.text and "@alice" in card.text

    # The quoted twit's page: its count and the quote.
    ui.open(page)
    assert "1 quote" in ui.text()
    quotes = browser.find_element(By.CSS_SELECTOR, "#quotes")
    assert "The first HBase lesson" in quotes.text
    _shoot(ui, "quoted-twit", lambda: ui.open(page))

    # A follower's home stream shows the quote with its card.
    ui.log_out()
    ui.log_in("carol")
    eventually(lambda: "The first HBase lesson" in _home(ui), timeout=30, what="the fan-out")
    assert browser.find_elements(By.CSS_SELECTOR, ".stream .quote-card")
    _shoot(ui, "quote-in-stream", lambda: ui.open("/"))

    services.delete_twit("alice", quoted.id)
    assert "This twit was deleted." in _home(ui)
