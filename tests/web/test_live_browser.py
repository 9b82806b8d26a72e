"""Live updates and the composer in headless Chromium, against a real web
server polling every half second (TWITBASE_LIVE_POLL_MS): a twit posted
while alice's home page is open shows as "Show 1 new twit" without a reload,
and the link brings it in; the composer counts characters as the server does
and Ctrl+Enter posts. Screenshots at desktop and phone widths in
test-artifacts/screenshots/live-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from devtools.processes import RedisProcess
from feeds import services
from tests.browser import UI, live_server
from tests.helpers import ServerAddr, register

from .test_pages_browser import SCHEMES, WIDTHS, _color_scheme


@pytest.fixture
def polling_url(
    local_twitbase: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[str]:
    """``live_url``, with the home page polling every half second."""
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    with live_server(redis_broker, tmp_path, {"TWITBASE_LIVE_POLL_MS": "500"}) as url:
        yield url


def _shots(ui: UI, name: str) -> None:
    """The page as it is now (no reload), at each width and scheme."""
    for scheme in SCHEMES:
        _color_scheme(ui.driver, scheme)
        for label, width in WIDTHS.items():
            ui.driver.set_window_size(width, 900)
            ui.screenshot(f"live-{name}-{label}-{scheme}")
    _color_scheme(ui.driver, "light")
    ui.driver.set_window_size(1280, 900)


def _set_text(driver: WebDriver, text: str) -> None:
    """Put ``text`` in the composer as typing would (an input event follows)."""
    driver.execute_script(
        "var box = document.querySelector('.composer textarea');"
        "box.value = arguments[0];"
        "box.dispatchEvent(new Event('input', {bubbles: true}));",
        text,
    )


def test_a_new_twit_shows_as_a_banner_without_a_reload_and_the_composer_counts(
    browser: WebDriver, polling_url: str, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob"):
        register(userid)
    services.follow("alice", "bob")
    services.post_twit("bob", "Already on alice's page when she opens it.")
    ui = UI(browser, polling_url)
    ui.log_in("alice")
    ui.reload_until(lambda: bool(ui.twit_texts()), "bob's twit in alice's stream")
    link = browser.find_element(By.CSS_SELECTOR, ".live-new-link")
    assert not link.is_displayed()
    browser.execute_script("window.stillTheSamePage = true;")

    services.post_twit("bob", "Posted while alice's page was open.")
    WebDriverWait(browser, 20).until(lambda d: link.is_displayed())
    assert link.text == "Show 1 new twit"
    assert browser.execute_script("return window.stillTheSamePage === true;"), "it reloaded"
    assert ui.twit_texts() == ["Already on alice's page when she opens it."]
    services.post_twit("bob", "And one more.")
    WebDriverWait(browser, 20).until(lambda d: link.text == "Show 2 new twits")
    _shots(ui, "banner")

    old = browser.find_element(By.TAG_NAME, "html")
    link.click()
    WebDriverWait(browser, 15).until(lambda d: not _alive(old))
    assert ui.twit_texts()[:2] == ["And one more.", "Posted while alice's page was open."]
    assert not browser.find_element(By.CSS_SELECTOR, ".live-new-link").is_displayed()

    # The composer: a count as one types, a warning near and past the limit.
    count = browser.find_element(By.CSS_SELECTOR, ".composer-count")
    said = browser.find_element(By.CSS_SELECTOR, ".composer-count-said")
    assert count.text == "0 / 280"
    browser.find_element(By.NAME, "text").send_keys("Hello")
    assert count.text == "5 / 280"
    assert said.get_attribute("textContent") == ""  # far from the limit: nothing said
    # Characters, not UTF-16 units: 280 emoji are within the limit.
    _set_text(browser, "\U0001f600" * 280)
    assert count.text == "280 / 280"
    assert "composer-count-near" in str(count.get_attribute("class"))
    assert said.get_attribute("textContent") == "0 characters left"
    _set_text(browser, "x" * 265)
    assert said.get_attribute("textContent") == "15 characters left"
    _shots(ui, "composer-near")
    _set_text(browser, "  " + "y" * 283 + "\n")  # trimmed, as the server trims
    assert count.text == "283 / 280"
    assert "composer-count-over" in str(count.get_attribute("class"))
    assert said.get_attribute("textContent") == "3 characters over the limit of 280"
    assert browser.find_element(By.NAME, "text").get_attribute("aria-invalid") == "true"
    _shots(ui, "composer-over")

    # Ctrl+Enter posts.
    _set_text(browser, "")
    box = browser.find_element(By.NAME, "text")
    box.send_keys("Posted with Ctrl+Enter.")
    old = browser.find_element(By.TAG_NAME, "html")
    box.send_keys(Keys.CONTROL, Keys.ENTER)
    WebDriverWait(browser, 15).until(lambda d: not _alive(old))
    assert "Your twit is posted." in ui.text()
    assert ui.twit_texts()[0] == "Posted with Ctrl+Enter."


def _alive(element: object) -> bool:
    try:
        element.is_enabled()  # type: ignore[attr-defined]
    except Exception:
        return False
    return True
