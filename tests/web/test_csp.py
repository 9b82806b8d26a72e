"""The Content-Security-Policy allows no inline script or style, so no
template or page may contain any: what the policy would block is not there."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from feeds.types import User
from tests.browser import UI
from tests.console.helpers import PAGES as CONSOLE_PAGES
from tests.helpers import register

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
# What script-src 'self' and style-src 'self' block: inline <script> and
# <style> elements, style="" attributes, on*="" handlers, javascript: URLs.
INLINE = re.compile(
    r"""<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle\s*=\s*["']|\son[a-z]+\s*=\s*["']|javascript:""",
    re.I,
)


def test_no_template_has_inline_script_or_style() -> None:
    assert len(TEMPLATES) > 20
    found = {str(path.relative_to(ROOT)): INLINE.findall(path.read_text()) for path in TEMPLATES}
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_no_rendered_page_has_inline_script_or_style(alice_client: Client, bob: User) -> None:
    services.set_staff("alice")
    services.follow("alice", "bob")
    twit = services.post_twit("bob", "hello <b>world</b>")
    services.post_twit("alice", "mine")
    pages = [
        "/",
        "/u/bob",
        "/u/alice",
        "/u/bob/followers",
        "/u/alice/following",
        f"/u/bob/t/{twit.id}",
        "/u/nobody",
        *CONSOLE_PAGES,
        "/console/rows?table=twits&by=hex&prefix=",
    ]
    for url in pages:
        response = alice_client.get(url)
        assert response.status_code in (200, 404), url
        assert "Content-Security-Policy" in response.headers, url
        assert INLINE.findall(response.content.decode()) == [], url
    for url in ("/", "/login", "/signup"):
        response = Client().get(url)
        assert INLINE.findall(response.content.decode()) == [], url


def test_every_avatar_colour_has_its_class_in_the_stylesheet() -> None:
    css = (ROOT / "feeds" / "static" / "feeds" / "site.css").read_text()
    from feeds.templatetags.ui import hue_class

    classes = {hue_class(f"user{i}") for i in range(2000)}
    assert len(classes) == 36
    for name in classes:
        assert re.search(rf"\.{name} \{{ --hue: \d+; \}}", css), name


def test_chromium_blocks_nothing_on_any_page(browser: WebDriver, live_url: str) -> None:
    """With the policy enforced (DEBUG on, as devstack runs), Chromium logs
    every blocked script or style; none may be logged, and avatars, coloured
    by a class now, still have their colour."""
    register("ben")
    ui = UI(browser, live_url)
    ui.open("/")
    ui.sign_up("ada", "Ada Lovelace")
    services.set_staff("ada")
    services.follow("ada", "ben")
    services.post_twit("ben", "hello")
    for path in ["/", "/u/ben", "/u/ada/following", "/no/such/page", *CONSOLE_PAGES]:
        ui.open(path)
        ui.wait_for("main")
    ui.open("/")
    blocked = [
        entry["message"]
        for entry in browser.get_log("browser")
        if "Content Security Policy" in entry["message"]
    ]
    assert blocked == []
    avatar = browser.find_element(By.CSS_SELECTOR, ".avatar")
    assert avatar.value_of_css_property("background-color") not in ("", "rgba(0, 0, 0, 0)")
