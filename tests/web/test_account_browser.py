"""Avatars and follow buttons in headless Chromium, against a real web
server: uploading an avatar from the account page, following from a people
list, and screenshots (desktop and phone, light and dark) of the account
page with an avatar, a people list with follow buttons and the home page's
who-to-follow, in test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

import io
import time
from pathlib import Path

from PIL import Image, ImageDraw
from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def _portrait(colour: str, accent: str) -> bytes:
    """A recognisable picture: a face-like disc on a coloured ground."""
    im = Image.new("RGB", (600, 400), colour)
    draw = ImageDraw.Draw(im)
    draw.ellipse((190, 60, 410, 340), fill=accent)
    draw.ellipse((250, 150, 280, 180), fill="black")
    draw.ellipse((320, 150, 350, 180), fill="black")
    draw.arc((250, 200, 350, 290), 20, 160, fill="black", width=8)
    out = io.BytesIO()
    im.save(out, "PNG")
    return out.getvalue()


def _loaded_images(browser: WebDriver, selector: str) -> list[str]:
    """The src of each image matching ``selector`` that loaded (has pixels),
    once all have finished loading or failed: images arrive after the page
    itself, and on a loaded machine (CI) well after (at most 10 s)."""
    images = browser.find_elements(By.CSS_SELECTOR, selector)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
        browser.execute_script("return arguments[0].complete", img) for img in images
    ):
        time.sleep(0.05)
    return [
        str(img.get_attribute("src"))
        for img in images
        if browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img)
    ]


def test_upload_an_avatar_and_follow_from_a_list_with_screenshots(
    browser: WebDriver, live_url: str, settings: Settings, tmp_path: Path
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie", "dave", "erin"):
        register(userid)
    services.set_avatar("bob", _portrait("#2b6cb0", "#f6ad55"))
    services.set_avatar("dave", _portrait("#276749", "#fbd38d"))
    for follower, followed in [
        ("alice", "bob"),
        ("bob", "charlie"),
        ("bob", "dave"),
        ("bob", "erin"),
        ("charlie", "dave"),
        ("bob", "alice"),
    ]:
        services.follow(follower, followed)
    services.post_twit("bob", "Avatars are stored as 256 px WebP, keyed by md5(userid).")
    picture = tmp_path / "alice.png"
    picture.write_bytes(_portrait("#9b2c2c", "#fed7e2"))

    ui = UI(browser, live_url)
    ui.log_in("alice")
    ui.open("/account")
    browser.find_element(By.NAME, "avatar").send_keys(str(picture))
    ui.click("form[action='/account/avatar'] button[type=submit]")
    assert "Your avatar is changed." in ui.text()
    version = services.get_user("alice").avatar
    assert version
    assert f"/u/alice/avatar?v={version}" in " ".join(_loaded_images(browser, ".avatar-image"))
    _shoot(ui, "account-avatar", lambda: ui.open("/account"))

    ui.open("/u/bob/following")
    assert len(browser.find_elements(By.CSS_SELECTOR, "form[action='/u/dave/follow']")) == 1
    assert len(_loaded_images(browser, ".person .avatar-image")) == 4  # default ones too
    ui.press("form[action='/u/dave/follow'] button", "form[action='/u/dave/unfollow']")
    assert ui.path() == "/u/bob/following"
    assert services.is_following("alice", "dave")
    # Both kinds of button: Following (dave) and Follow (the others).
    _shoot(ui, "people-follow-buttons", lambda: ui.open("/u/bob/following"))

    ui.open("/")
    assert "Who to follow" in ui.text()
    _shoot(ui, "home-who-to-follow", lambda: ui.open("/"))
