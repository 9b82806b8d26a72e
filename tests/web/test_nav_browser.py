"""The header in headless Chromium (tests/browser.py): one row at every
width, its search box wide enough to type in, for staff too, whose nav has
a fifth link (Console), and never wider than the window; on a phone a tab
bar at the bottom (Home, Search, Notifications, Profile) and the account
menu, which opens without JavaScript. Screenshots at desktop (1280) and
phone (390) widths, light and dark, go to test-artifacts/screenshots/ for a
person to look at."""

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
# A visitor's, beside Log in and Sign up on a 360 px phone.
MIN_VISITOR_SEARCH_PX = 100
# One row: a 2rem mark (or a button) and its padding; two rows took 101 px.
MAX_HEADER_PX = 64
# Where the tab bar takes over Home, the bell and Profile (site.css).
TAB_BAR_BELOW = 700
# Desktop, a small laptop, tablets, phones.
WIDTHS = (1280, 1024, 1000, 999, 900, 820, 768, 700, 699, 600, 561, 560, 481, 480, 390, 360)


def _layout(ui: UI) -> tuple[int, int, int, int]:
    """The search box's width, and the header's scroll and client widths and height."""
    box = ui.driver.find_element(By.ID, "nav-q").size["width"]
    overflow = ui.driver.execute_script(
        "const h = document.querySelector('.topbar');"
        "return [h.scrollWidth, document.documentElement.clientWidth, h.offsetHeight];"
    )
    return int(box), int(overflow[0]), int(overflow[1]), int(overflow[2])


def _tab_bar(ui: UI) -> list[str]:
    """The tab bar's labels, if it shows, and only if it sits at the window's foot."""
    found = ui.driver.execute_script(
        "const bar = document.querySelector('.tabbar');"
        "if (!bar || !bar.getClientRects().length) return [];"
        "if (Math.abs(bar.getBoundingClientRect().bottom - window.innerHeight) > 1) return ['off'];"
        "return [...bar.querySelectorAll('a .tab-label')].map((label) => label.innerText);"
    )
    return [str(label) for label in found]


def test_the_header_is_one_row_with_a_usable_search_box_for_staff_at_every_width(
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
            box, scroll, client, height = _layout(ui)
            if box < MIN_SEARCH_PX or scroll > client or height > MAX_HEADER_PX:
                problems.append(
                    f"{userid} at {width}px: box {box}px, header {scroll}/{client}, {height}px high"
                )
            tabs = ["Home", "Search", "Notifications", "Profile"] if width < TAB_BAR_BELOW else []
            if _tab_bar(ui) != tabs:
                problems.append(f"{userid} at {width}px: tab bar {_tab_bar(ui)}")
            if width in (1000, 999, 700, 699):  # either side of the breakpoints
                ui.screenshot(f"nav-{userid}-home-{width}")
        # On a phone Account, Messages, Console and Log out are in the account menu.
        browser.set_window_size(390, 844)
        menu = ui.driver.find_element(By.CSS_SELECTOR, ".nav-menu-list")
        assert not menu.is_displayed()
        ui.driver.find_element(By.CSS_SELECTOR, ".nav-menu summary").click()
        staff = ["Console"] if userid == "alice" else []
        assert menu.text.split("\n") == ["Account", "Messages", *staff, "Log out"]
        ui.screenshot(f"nav-{userid}-menu-390")
        browser.set_window_size(1280, 900)
        if userid == "alice":
            _shoot(ui, "nav-staff-home", lambda: ui.open("/"))
        ui.log_out()
    # A visitor's header: Log in and Sign up, each on one line, beside the box.
    ui.open("/login")
    for width in WIDTHS:
        browser.set_window_size(width, 900)
        box, scroll, client, height = _layout(ui)
        log_in = ui.driver.find_element(By.CSS_SELECTOR, ".nav a[href='/login']").size["height"]
        # The nav's end inside the header's padding, not against the window's edge.
        gap = ui.driver.execute_script(
            "return document.documentElement.clientWidth"
            " - document.querySelector('.nav').getBoundingClientRect().right"
        )
        if box < MIN_VISITOR_SEARCH_PX or scroll > client or height > MAX_HEADER_PX or log_in > 40:
            problems.append(
                f"visitor at {width}px: box {box}px, header {scroll}/{client}, {height}px "
                f"high, Log in {log_in}px high"
            )
        if gap < 8:
            problems.append(f"visitor at {width}px: the nav {gap}px from the edge")
    ui.screenshot("nav-visitor-login-360")
    browser.set_window_size(1280, 900)
    assert not problems, "\n".join(problems)
