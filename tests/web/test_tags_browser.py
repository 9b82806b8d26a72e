"""Hashtag pages and search in headless Chromium, against a real web server
(tests/browser.py): a hashtag followed from a twit, a search typed in the top
bar, and screenshots of a hashtag page, the search page and the trending box
at desktop (1280) and phone (390) widths, light and dark, in
test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def test_a_hashtag_page_and_the_search_page(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    services.update_profile("charlie", name="Alba Charlton")
    services.post_twit("alice", "Row keys first, then everything else. #HBase #schema")
    services.post_twit("bob", "Reversed timestamps put the newest twit first. #hbase")
    services.post_twit("charlie", "Salting spreads a time-first key over regions. #HBASE #trending")
    services.post_twit("bob", "Tea break. #tea")

    ui = UI(browser, live_url)
    ui.log_in("bob")
    ui.click('a.twit-hashtag[href="/tags/hbase"]')
    assert ui.path() == "/tags/hbase"
    assert len(ui.twit_texts()) == 3
    assert ui.twit_texts()[0].startswith("Salting spreads")

    box = browser.find_element(By.ID, "nav-q")
    box.send_keys("al", Keys.ENTER)
    ui.wait_for(".people")
    assert ui.path() == "/search?q=al"
    found = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".person-userid")]
    assert sorted(found) == ["@alice", "@charlie"]

    _shoot(ui, "tags-hashtag", lambda: ui.open("/tags/hbase"))
    _shoot(ui, "tags-search", lambda: ui.open("/search?q=al"))
    _shoot(ui, "tags-search-too-long", lambda: ui.open("/search?q=" + "x" * 60))
    _shoot(ui, "tags-home-trending", lambda: ui.open("/"))
