"""Editing a profile in headless Chromium against a real web server
(tests/browser.py), as issue 37 asks: the profile's "Edit profile" leads to
the form, whose name and bio the profile then shows; an avatar too large to
send comes back with the limit on the field, the page and its navigation
intact; "Follows you" on a profile and in a list. Screenshots of the
profile, the form with its error and a list, at desktop and phone widths,
light and dark, go to test-artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from feeds.services import avatars
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def test_edit_the_profile_and_see_it_with_follows_you(
    browser: WebDriver, live_url: str, settings: Settings, tmp_path: Path
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "carol"):
        register(userid)
    services.follow("bob", "alice")
    services.follow("carol", "bob")
    services.follow("alice", "bob")
    services.post_twit("alice", "Tables all the way down.")

    ui = UI(browser, live_url)
    ui.log_in("alice")
    ui.open("/u/alice")
    ui.click(".profile-action a")
    assert ui.path() == "/account#profile"
    ui.fill({"name": "Alice Liddell", "bio": "Keys, rows and #hbase."})
    ui.click("form[action='/account/profile'] button[type=submit]")
    assert ui.path() == "/u/alice"
    assert "Your profile is saved." in ui.text()
    assert browser.find_element(By.CSS_SELECTOR, ".profile-names h1").text == "Alice Liddell"
    assert browser.find_element(By.CSS_SELECTOR, ".profile-bio").text == "Keys, rows and #hbase."
    _shoot(ui, "profile-bio", lambda: ui.open("/u/alice"))

    # 3 MB: larger than any request the site reads.
    big = tmp_path / "big.png"
    big.write_bytes(b"\x89PNG" + b"x" * (3 * 1024 * 1024))
    ui.open("/account")
    browser.find_element(By.NAME, "avatar").send_keys(str(big))
    ui.click("form[action='/account/avatar'] button[type=submit]")
    assert ui.path().startswith("/account?avatar_too_large=")
    error = browser.find_element(By.ID, "id_avatar_error").text
    assert f"at most {avatars.MAX_BYTES // (1024 * 1024)} MB" in error
    assert "3.0 MB" in error
    assert browser.find_elements(By.CSS_SELECTOR, "header .nav")  # the site around it
    assert services.get_user("alice").avatar == 0
    _shoot(ui, "profile-avatar-too-large", lambda: ui.open(ui.path()))

    ui.open("/u/bob")
    assert "Follows you" in browser.find_element(By.CSS_SELECTOR, ".profile-names").text
    ui.open("/u/carol")
    assert "Follows you" not in ui.text()
    ui.open("/u/bob/followers")
    rows = {
        e.get_attribute("id"): e.text for e in browser.find_elements(By.CSS_SELECTOR, ".person")
    }
    assert "Follows you" not in rows["u-carol"]
    assert "Follows you" not in rows["u-alice"]  # oneself
    ui.open("/u/alice/followers")
    assert "Follows you" in browser.find_element(By.ID, "u-bob").text
    _shoot(ui, "people-follows-you", lambda: ui.open("/u/alice/followers"))
    _shoot(ui, "profile-follows-you", lambda: ui.open("/u/bob"))
