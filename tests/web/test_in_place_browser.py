"""Like, repost and follow in headless Chromium (tests/browser.py), with
feeds/static/feeds/inplace.js: the button and its count change in place, the
page neither reloads nor scrolls, and nothing breaks the Content-Security-
Policy. Screenshots of the home stream after, at desktop (1280) and phone
(390) widths, light and dark, go to test-artifacts/screenshots/."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .helpers import post_in_order
from .test_pages_browser import _shoot


def _reads(browser: WebDriver, selector: str, *texts: str) -> bool:
    """Whether the button at ``selector`` comes to read one of ``texts``."""
    # Read in one script: the form may be replaced between a find and a read.
    read = "const e = document.querySelector(arguments[0]); return e && e.innerText;"
    WebDriverWait(browser, 10).until(lambda d: d.execute_script(read, selector) in texts)
    return True


def test_like_repost_and_follow_keep_the_page_and_its_scroll(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    services.follow("alice", "bob")
    post_in_order("bob", [f"Twit number {n} about #tables and rows." for n in range(15)])
    oldest = services.timeline("bob").items[-1]

    ui = UI(browser, live_url)
    ui.log_in("alice")
    ui.reload_until(lambda: len(ui.twit_texts()) >= 15, "bob's twits in alice's stream")
    like = f"#t-{oldest.id} .twit-like"
    repost = f"#t-{oldest.id} .twit-repost"
    browser.execute_script(
        "document.querySelector(arguments[0]).scrollIntoView({block: 'center'});"
        "window.notReloaded = true;",
        like,
    )
    scrolled = browser.execute_script("return window.scrollY")
    assert scrolled > 1000, "the twit is far down the page"

    browser.find_element(By.CSS_SELECTOR, like).click()
    assert _reads(browser, like, "♥ Liked · 1")
    browser.find_element(By.CSS_SELECTOR, repost).click()
    assert _reads(browser, repost, "↻ Reposted · 1")
    assert browser.execute_script("return [window.scrollY, window.notReloaded]") == [scrolled, True]
    assert services.get_twit(oldest.id).likes == 1
    assert services.get_twit(oldest.id).reposts == 1
    # The button is the new form's: it undoes, in place too, and keeps the focus.
    assert browser.switch_to.active_element.text == "↻ Reposted · 1"
    browser.find_element(By.CSS_SELECTOR, like).click()
    assert _reads(browser, like, "♡ Like")
    assert services.get_twit(oldest.id).likes == 0
    assert browser.execute_script("return [window.scrollY, window.notReloaded]") == [scrolled, True]

    # Follow charlie from "Who to follow": the button turns into Following.
    follow = "#u-charlie button"
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element(By.CSS_SELECTOR, follow).click()
    assert _reads(browser, follow, "Following", "Unfollow")  # Unfollow while hovered
    WebDriverWait(browser, 10).until(lambda d: services.is_following("alice", "charlie"))
    assert browser.execute_script("return window.notReloaded") is True
    assert not browser.find_elements(By.CSS_SELECTOR, ".messages")

    blocked = [
        entry["message"]
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" or "Content Security Policy" in entry["message"]
    ]
    assert blocked == []
    services.like("alice", oldest.id)
    _shoot(ui, "in-place-home", lambda: ui.open("/"))
