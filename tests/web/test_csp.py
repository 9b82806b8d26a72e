"""The Content-Security-Policy allows no inline script or style, so no
template or page may contain any: what the policy would block is not there."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client

from feeds import services
from feeds.types import User
from tests.console.conftest import PAGES as CONSOLE_PAGES

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
