"""The header's search box in headless Chromium (tests/browser.py): wide
enough to type in on every width, for staff too, whose nav has a fifth link
(Console), and the header never wider than the window. Screenshots at
desktop (1280) and phone (390) widths, light and dark, go to
test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot

# About 20 characters of "#hashtag" or a name: what a search box needs.
MIN_SEARCH_PX = 150
# Desktop, a small laptop, tablets, phones.
WIDTHS = (1280, 1024, 900, 820, 768, 700, 600, 561, 560, 480, 390, 360)


def _layout(ui: UI) -> tuple[int, int, int]:
    """The search box's width, and the header's scroll and client widths."""
    box = ui.driver.find_element(By.ID, "nav-q").size["width"]
    overflow = ui.driver.execute_script(
        "const h = document.querySelector('.topbar');"
        "return [h.scrollWidth, document.documentElement.clientWidth];"
    )
    return int(box), int(overflow[0]), int(overflow[1])


def test_the_search_box_stays_usable_for_staff_at_every_width(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    register("alice")
    register("bob")
    services.set_staff("alice")
    services.follow("bob", "alice")  # an unread count beside the bell
    services.post_twit("alice", "Staff see a Console link in the header.")

    ui = UI(browser, live_url)
    problems = []
    for userid in ("alice", "bob"):
        ui.log_in(userid)
        ui.open("/")
        assert ("Console" in ui.driver.find_element(By.CSS_SELECTOR, ".nav").text) == (
            userid == "alice"
        )
        for width in WIDTHS:
            browser.set_window_size(width, 900)
            box, scroll, client = _layout(ui)
            if box < MIN_SEARCH_PX or scroll > client:
                problems.append(f"{userid} at {width}px: box {box}px, header {scroll}/{client}")
            if width in (900, 820, 600):  # either side of the breakpoints
                ui.screenshot(f"nav-{userid}-home-{width}")
        browser.set_window_size(1280, 900)
        if userid == "alice":
            _shoot(ui, "nav-staff-home", lambda: ui.open("/"))
        ui.log_out()
    assert not problems, "\n".join(problems)
