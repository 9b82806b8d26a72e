"""The home page puts the stream first (issue 37), in headless Chromium
against a real web server polling every half second (tests/browser.py): at
1280x900 and 390x844 the first twit is whole above the fold; on the desktop
trending and who to follow sit beside the stream, on a phone below it; a
twit posted from the composer, and the "new twits" banner, show at the top
of the stream. Screenshots at both widths, light and dark, go to
test-artifacts/screenshots/home-layout-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from devtools.processes import RedisProcess
from feeds import services
from tests.browser import UI, live_server
from tests.helpers import ServerAddr, register

from .helpers import post_in_order
from .test_pages_browser import _shoot

DESKTOP = (1280, 900)
PHONE = (390, 844)

BOXES_JS = """
const box = (sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  const r = e.getBoundingClientRect();
  const y = window.scrollY;
  return {top: r.top + y, bottom: r.bottom + y, left: r.left, right: r.right};
};
return {
  first: box('.stream .twit'), stream: box('.stream'), side: box('.home-side'),
  suggestions: box('.suggestions'), trending: box('.trending'),
  fold: window.innerHeight, scrollY: window.scrollY,
  bar: box('.tabbar') && getComputedStyle(document.querySelector('.tabbar')).display !== 'none'
    ? document.querySelector('.tabbar').getBoundingClientRect().top : window.innerHeight,
};
"""


@pytest.fixture
def polling_url(
    local_twitbase: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> Iterator[str]:
    """``live_url``, with the home page polling every half second."""
    settings.TWITBASE_POSTS_PER_MINUTE = 1000
    with live_server(redis_broker, tmp_path, {"TWITBASE_LIVE_POLL_MS": "500"}) as url:
        yield url


def _boxes(ui: UI, size: tuple[int, int]) -> dict[str, Any]:
    ui.driver.set_window_size(*size)
    ui.open("/")
    boxes: dict[str, Any] = ui.driver.execute_script(BOXES_JS)
    # The window's inner height is the fold: what shows before any scrolling.
    assert boxes["scrollY"] == 0
    return boxes


def test_the_first_twit_is_above_the_fold_with_the_side_beside_or_below(
    browser: WebDriver, polling_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "carol", "dave", "erin"):
        register(userid)
    services.follow("alice", "bob")
    for other in ("carol", "dave", "erin"):  # popular: suggested to alice
        services.follow("bob", other)
    post_in_order("bob", [f"Row {n} of the #stream, about #tables." for n in range(8)])
    ui = UI(browser, polling_url)
    ui.log_in("alice")
    ui.reload_until(lambda: len(ui.twit_texts()) >= 8, "bob's twits in alice's stream")

    desktop = _boxes(ui, DESKTOP)
    assert desktop["first"]["bottom"] <= desktop["fold"], desktop
    # The side column: right of the stream, its top level with the composer's.
    assert desktop["side"]["left"] >= desktop["stream"]["right"], desktop
    assert desktop["trending"]["top"] < desktop["fold"], desktop
    assert desktop["suggestions"]["bottom"] <= desktop["fold"], desktop

    phone = _boxes(ui, PHONE)
    # Above the fold and above the tab bar fixed at the bottom.
    assert phone["first"]["bottom"] <= phone["bar"] <= phone["fold"], phone
    assert phone["side"]["top"] >= phone["stream"]["bottom"], phone

    # Posting from the composer, on the phone: the twit tops the stream.
    ui.fill({"text": "Just posted, and at the top."})
    ui.submit()
    assert ui.twit_texts()[0] == "Just posted, and at the top."
    assert ui.driver.execute_script(BOXES_JS)["first"]["bottom"] <= phone["bar"]

    # A twit arriving while the page is open: the banner sits right above the
    # stream, and following it puts the new twit first.
    services.post_twit("bob", "Arrived while alice was reading.")
    banner = ".live-new-link:not([hidden])"
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, banner))
    assert browser.execute_script(
        "return document.querySelector('.live-new').nextElementSibling.classList.contains('stream')"
    )
    link = browser.find_element(By.CSS_SELECTOR, banner)
    assert link.location["y"] + link.size["height"] <= phone["bar"]
    ui.click(banner)
    assert ui.twit_texts()[0] == "Arrived while alice was reading."

    _shoot(ui, "home-layout", lambda: ui.open("/"))
