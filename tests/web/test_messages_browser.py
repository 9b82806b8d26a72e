"""Direct messages in headless Chromium, against a real web server polling
every half second: the top bar's unread count, the inbox, a conversation
that shows "Show 1 new message" when one arrives while it is open, the send
box, and the profile's Message button. Screenshots of the inbox and of a
conversation at desktop and phone widths, light and dark
(test-artifacts/screenshots/pages-messages-*, live-message-*)."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from feeds.services import messages
from tests.browser import UI
from tests.helpers import register

from .test_live_browser import _shots, polling_url  # noqa: F401  (the fixture)
from .test_pages_browser import _shoot


def _badge(ui: UI) -> str:
    found = ui.driver.find_elements(By.CSS_SELECTOR, ".nav-messages .nav-count")
    return (found[0].get_attribute("textContent") or "").replace(" unread", "") if found else ""


def _chat(ui: UI) -> list[str]:
    return [str(e.text) for e in ui.driver.find_elements(By.CSS_SELECTOR, ".chat-text")]


def test_inbox_conversation_live_banner_and_send(
    browser: WebDriver,
    polling_url: str,  # noqa: F811
    settings: Settings,
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    messages.send("alice", "charlie", "Charlie, did the region split finish?")
    messages.send("charlie", "alice", "It did: 16 regions now, all balanced.")
    messages.send("bob", "alice", "Lunch at noon?")
    messages.send("bob", "alice", "The usual place, by the data centre.")

    ui = UI(browser, polling_url)
    ui.log_in("alice")
    assert _badge(ui) == "3"
    ui.click(".nav-messages")
    assert ui.path() == "/messages"
    rows = [str(e.text) for e in browser.find_elements(By.CSS_SELECTOR, ".inbox-text")]
    assert rows == ["The usual place, by the data centre.", "It did: 16 regions now, all balanced."]
    counts = [
        str(e.get_attribute("textContent"))
        for e in browser.find_elements(By.CSS_SELECTOR, ".inbox-count")
    ]
    assert counts == ["2 unread", "1 unread"]
    _shoot(ui, "messages-inbox", lambda: ui.open("/messages"))

    ui.click(".inbox-link")  # bob's, the latest
    assert ui.path() == "/messages/bob"
    assert _chat(ui) == ["Lunch at noon?", "The usual place, by the data centre."]
    assert _badge(ui) == "1"  # charlie's is left
    link = browser.find_element(By.CSS_SELECTOR, ".live-new-link")
    assert not link.is_displayed()
    messages.send("bob", "alice", "Or is tomorrow better?")
    WebDriverWait(browser, 20).until(lambda d: link.is_displayed())
    assert link.text == "Show 1 new message"
    _shots(ui, "message-banner")
    ui.click(".live-new-link")
    assert _chat(ui)[-1] == "Or is tomorrow better?"

    ui.fill({"text": "Noon works. See you there!"})
    ui.submit()
    assert ui.path() == "/messages/bob"
    mine = browser.find_elements(By.CSS_SELECTOR, ".chat-mine .chat-text")
    assert [e.text for e in mine] == ["Noon works. See you there!"]
    assert messages.inbox("bob").items[0].unread == 1
    _shoot(ui, "messages-conversation", lambda: ui.open("/messages/bob"))

    ui.open("/u/charlie")
    ui.click(".profile-action a[href='/messages/charlie']")
    assert ui.path() == "/messages/charlie"
    assert _chat(ui) == [
        "Charlie, did the region split finish?",
        "It did: 16 regions now, all balanced.",
    ]
    ui.open("/")
    assert _badge(ui) == ""
