"""Issue 11's pages in headless Chromium, against a real web server
(tests/browser.py): where the focus lands after a bad sign-up, a permalink's
time in the reader's time zone, no favicon 404, and screenshots of every
page issue 11 changed at desktop (1280) and phone (390) widths, light and
dark, in test-artifacts/screenshots/ for a person to look at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from feeds.types import User
from tests.browser import PASSWORD, UI
from tests.helpers import register

WIDTHS = {"desktop": 1280, "phone": 390}
SCHEMES = ("light", "dark")


def _focused_name(browser: WebDriver) -> str:
    return str(browser.switch_to.active_element.get_attribute("name"))


def _color_scheme(browser: WebDriver, scheme: str) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


def _shoot(ui: UI, name: str, load: Callable[[], None]) -> None:
    """Screenshots of the page ``load`` opens, at each width in each scheme,
    loaded afresh for each (a message or a focus shows once per load)."""
    for scheme in SCHEMES:
        _color_scheme(ui.driver, scheme)
        for label, width in WIDTHS.items():
            ui.driver.set_window_size(width, 900)
            load()
            ui.screenshot(f"pages-{name}-{label}-{scheme}")
    _color_scheme(ui.driver, "light")
    ui.driver.set_window_size(1280, 900)


def test_the_focus_lands_on_the_field_to_fix_after_a_bad_sign_up_or_log_in(
    browser: WebDriver, live_url: str
) -> None:
    ui = UI(browser, live_url)
    ui.open("/signup")
    assert _focused_name(browser) == "userid"
    ui.fill({"userid": "ada", "name": "Ada", "email": "not an email", "password": "short"})
    ui.submit()
    assert _focused_name(browser) == "email"
    assert browser.find_element(By.NAME, "name").get_attribute("value") == "Ada"
    assert browser.find_element(By.NAME, "password").get_attribute("value") == ""
    errors = {e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, ".field-error")}
    assert errors == {"id_email_error", "id_password_error"}
    ui.fill({"userid": "a!", "name": "Ada", "email": "ada@example.com", "password": PASSWORD})
    ui.submit()
    assert _focused_name(browser) == "userid"
    # A refused log-in keeps the userid and puts the cursor in the password.
    ui.open("/login")
    assert _focused_name(browser) == "userid"
    ui.fill({"userid": "nobody_here", "password": "not-the-password"})
    ui.submit()
    assert _focused_name(browser) == "password"
    assert browser.find_element(By.NAME, "userid").get_attribute("value") == "nobody_here"


def test_a_permalink_shows_the_readers_local_time_with_utc_on_hover(
    browser: WebDriver, live_url: str, alice: User
) -> None:
    twit = services.post_twit("alice", "What time is it where you are?")
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    ui = UI(browser, live_url)
    ui.open(f"/u/alice/t/{twit.id}")
    ui.wait_for(".permalink-time time")
    shown = browser.find_element(By.CSS_SELECTOR, ".permalink-time time")
    tokyo = twit.created.astimezone(ZoneInfo("Asia/Tokyo"))
    assert str(shown.text).startswith(f"{tokyo:%H:%M} · {tokyo.day} {tokyo:%B %Y} "), shown.text
    assert not str(shown.text).endswith("UTC")
    utc = twit.created
    assert shown.get_attribute("title") == f"{utc:%H:%M:%S} · {utc.day} {utc:%B %Y} UTC"


def test_screenshots_of_every_changed_page(
    browser: WebDriver, live_url: str, settings: Settings, tmp_path: Path
) -> None:
    # The web server checks passwords with Django's default hasher, not the
    # tests' fast one: the users it logs in are registered with it.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    ui = UI(browser, live_url)
    twit = services.post_twit("alice", "Thinking about deleting this one. Or not.")
    services.post_twit("bob", "Bob's first twit, for alice's home stream.")
    services.set_disabled("charlie")

    def bad_sign_up() -> None:
        ui.open("/signup")
        ui.fill({"userid": "no", "name": "Ada", "email": "ada@", "password": "short"})
        ui.submit()

    def bad_log_in() -> None:
        ui.open("/login")
        ui.fill({"userid": "alice", "password": "wrong-password"})
        ui.submit()

    ui.log_in("alice")

    def follow_toggle() -> None:
        ui.open("/u/bob")
        ui.click("form[action^='/u/bob/'] button")

    _shoot(ui, "profile-follow-message", follow_toggle)
    assert "follow @bob" in ui.text()
    _shoot(ui, "home", lambda: ui.open("/"))
    _shoot(ui, "permalink", lambda: ui.open(f"/u/alice/t/{twit.id}"))
    delete = f"/u/alice/t/{twit.id}/delete?next=/u/alice&back=/u/alice/t/{twit.id}"
    _shoot(ui, "delete-confirm", lambda: ui.open(delete))
    _shoot(ui, "405-logout", lambda: ui.open("/logout"))
    _shoot(ui, "405-follow", lambda: ui.open("/u/bob/follow"))
    _shoot(ui, "profile", lambda: ui.open("/u/alice"))
    _shoot(ui, "followers", lambda: ui.open("/u/bob/followers"))

    # The confirmation's button deletes, and says so.
    ui.open(delete)
    ui.click(".confirm-actions button")
    assert ui.path() == "/u/alice"
    assert "Your twit is deleted." in ui.text()
    ui.log_out()

    _shoot(ui, "signup-errors", bad_sign_up)
    assert _focused_name(browser) == "userid"
    _shoot(ui, "login-error", bad_log_in)
    _shoot(ui, "404", lambda: ui.open("/no/such/page"))
    _shoot(ui, "suspended", lambda: ui.open("/u/charlie"))

    # No page asked for anything that is not there: no favicon 404, in the
    # browser's log or the server's (the 404s: /no/such/page and the
    # suspended account's profile).
    failed = [e["message"] for e in browser.get_log("browser") if "favicon" in e["message"]]
    assert failed == []
    log = (tmp_path / "runserver.log").read_text()
    not_found = [line for line in log.splitlines() if re.search(r'" 404 \d', line)]
    assert not_found, "the server log shows no status codes: this check would see nothing"
    expected = ("GET /no/such/page ", "GET /u/charlie ")
    assert all(any(path in line for path in expected) for line in not_found), not_found
    assert re.search(r'"GET /static/feeds/favicon\.svg HTTP/1\.1" (200|304)', log)
