"""Lists in headless Chromium against a real web server with a real worker
(tests/browser.py): make a list on the Lists page, add an account from its
profile's "…" menu, read the list's timeline. Screenshots of the three
pages, at desktop and phone widths, light and dark, go to
test-artifacts/screenshots/."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def test_make_a_list_add_someone_and_read_it(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "carol"):
        register(userid)
    services.post_twit("bob", "Bob on rows and regions")
    services.post_twit("carol", "Carol on compactions")
    services.post_twit("alice", "Alice is not on her list")
    ui = UI(browser, live_url)
    ui.log_in("alice")

    ui.open("/account")
    ui.click("a[href='/lists']")
    ui.fill({"name": "HBase people", "description": "who write about storage"})
    ui.click("form[action='/lists/new'] button[type=submit]")
    assert "You made the list “HBase people”" in ui.text()
    list_path = ui.path()

    for userid in ("bob", "carol"):
        ui.open(f"/u/{userid}")
        ui.driver.find_element(By.CSS_SELECTOR, ".profile-more summary").click()
        ui.click(f"a[href='/u/{userid}/lists']")
        ui.click(f"form[action^='/u/{userid}/lists/'] button")
        assert f"@{userid} is on “HBase people”" in ui.text()
    _shoot(ui, "add-to-list", lambda: ui.open("/u/carol/lists"))

    ui.open(list_path)
    text = ui.text()
    assert text.index("Carol on compactions") < text.index("Bob on rows")
    assert "Alice is not on her list" not in text
    assert "2 members" in text
    _shoot(ui, "list", lambda: ui.open(list_path))
    _shoot(ui, "lists", lambda: ui.open("/lists"))
