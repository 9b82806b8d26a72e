"""Text contrast in headless Chromium (tests/browser.py): buttons, links and
text against what is behind them reach WCAG AA's 4.5:1 in the light scheme
and the dark one (``prefers-color-scheme`` emulated), hover included for
the primary button. Screenshots of the pages checked, at desktop (1280) and
phone (390) widths in both schemes, go to test-artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import SCHEMES, _color_scheme, _shoot

AA = 4.5
# Primary buttons (white on the accent), links, body and muted text, the
# like/repost buttons and the unread count: what a reader reads.
SELECTORS = (
    "body",
    ".button:not(.button-secondary):not(.button-ghost)",
    "main a:not(.button)",
    ".nav > a:not(.button)",
    ".muted",
    ".twit-text",
    ".button-text",
    ".nav-count",
)

# Each visible element's text colour and the colour behind it: the nearest
# backgrounds up the tree, each (and the text) composited over the one below
# as its alpha says, down to the page's white canvas.
COLOURS_JS = """
const parse = (c) => {
  const m = c.match(/rgba?\\(([^)]+)\\)/);
  if (!m) return [255, 255, 255, 0];
  const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, below) => [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3]));
const found = [];
for (const el of document.querySelectorAll(arguments[0])) {
  if (!el.getClientRects().length || !el.textContent.trim()) continue;
  const layers = [];
  for (let e = el; e; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor));
  let bg = [255, 255, 255];
  for (const layer of layers.reverse()) bg = over(layer, bg);
  const fg = over(parse(getComputedStyle(el).color), bg);
  found.push({what: el.outerHTML.slice(0, 90), fg, bg});
}
return found;
"""


def _luminance(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    """WCAG 2's contrast ratio of two sRGB colours, 1 to 21."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_formula() -> None:
    assert round(contrast([255, 255, 255], [0, 0, 0]), 1) == 21.0
    # The figure: white on dark mode's old accent, #4c8dff.
    assert round(contrast([255, 255, 255], [0x4C, 0x8D, 0xFF]), 1) == 3.2


def _low_contrast(driver: WebDriver, selector: str) -> tuple[int, list[str]]:
    """How many elements ``selector`` checked, and those under 4.5:1."""
    found: list[dict[str, Any]] = driver.execute_script(COLOURS_JS, selector)
    low = [
        f"{f['what']}: {contrast(f['fg'], f['bg']):.2f}:1"
        for f in found
        if contrast(f["fg"], f["bg"]) < AA
    ]
    return len(found), low


def test_buttons_links_and_text_reach_aa_contrast_in_light_and_dark(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    services.follow("alice", "bob")
    services.follow("bob", "alice")  # an unread notification: the count badge
    services.post_twit("bob", "Contrast is #a11y: see @alice's notes on https://example.com")
    book = services.post_twit("alice", "Reading the HBase book, chapter 4.")
    services.post_twit("bob", "Which chapter is on row keys?", reply_to=book.id)

    ui = UI(browser, live_url)
    pages = {"landing": "/"}
    checked: dict[str, int] = {}
    low: list[str] = []
    for logged_in in (False, True):
        if logged_in:
            ui.log_in("alice")
            pages = {"home": "/", "profile": "/u/charlie"}
        for scheme in SCHEMES:
            _color_scheme(browser, scheme)
            for page, path in pages.items():
                ui.open(path)
                for selector in SELECTORS:
                    count, under = _low_contrast(browser, selector)
                    checked[selector] = checked.get(selector, 0) + count
                    low += [f"{scheme} {page} {selector} {what}" for what in under]
                # Hovered, the primary button darkens: still 4.5:1.
                primary = ".button:not(.button-secondary):not(.button-ghost)"
                button = browser.find_element(By.CSS_SELECTOR, f"main {primary}")
                ActionChains(browser).move_to_element(button).perform()
                _, under = _low_contrast(browser, f"main {primary}:hover")
                low += [f"{scheme} {page} hover {what}" for what in under]
    # On a phone: the tab bar (and its unread count), "Follows you" and the
    # notifications' badges; the notifications page last, as it clears the count.
    browser.set_window_size(390, 844)
    phone = {
        "/": (".tabbar a", ".tab-count", ".twit-reply"),
        "/u/bob": (".badge-small",),
        "/notifications": (".notification-icon", ".notification-text"),
    }
    for path, selectors in phone.items():
        for scheme in SCHEMES:
            _color_scheme(browser, scheme)
            ui.open(path)
            for selector in selectors:
                count, under = _low_contrast(browser, selector)
                checked[selector] = checked.get(selector, 0) + count
                low += [f"{scheme} phone {path} {selector} {what}" for what in under]
    browser.set_window_size(1280, 900)
    _color_scheme(browser, "light")
    assert low == []
    # Each kind of element was there to check, in each scheme.
    assert all(count >= 2 for count in checked.values()), checked

    _shoot(ui, "contrast-home", lambda: ui.open("/"))
    _shoot(ui, "contrast-profile", lambda: ui.open("/u/charlie"))
