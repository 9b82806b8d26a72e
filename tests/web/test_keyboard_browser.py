"""The keyboard in headless Chromium against a real web server
(tests/browser.py), as issue 37 asks: the home page's skip link reaches the
first twit's Like in a few Tabs; j and k move between twits, l likes the
one selected (in place), r opens its thread with the cursor in the reply
box, n the composer, and ? the list of shortcuts; keys typed in a box stay
text. Screenshots of the list at desktop and phone widths, light and dark,
go to test-artifacts/screenshots/keyboard-*.png."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .helpers import post_in_order
from .test_pages_browser import SCHEMES, WIDTHS, _color_scheme

# Tab to the skip link, Enter, then Tab past the first twit's name, time and
# Reply to its Like: 5 Tabs (the issue counted 29 before the skip link).
MAX_TABS_TO_LIKE = 5


def _keys(browser: WebDriver, *keys: str) -> None:
    ActionChains(browser).send_keys(*keys).perform()


def _active(browser: WebDriver) -> dict[str, str]:
    found: dict[str, str] = browser.execute_script(
        "const e = document.activeElement; const t = e.closest('article.twit');"
        "return {tag: e.tagName, cls: e.className, name: e.getAttribute('name') || '',"
        " twit: t ? t.id : '', text: e.innerText || ''};"
    )
    return found


def test_shortcuts_and_a_short_way_to_the_first_twit(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    register("alice")
    register("bob")
    services.follow("alice", "bob")
    post_in_order("bob", [f"Keyboard twit {n}." for n in range(5)])
    newest_first = [t.id for t in services.timeline("bob").items]

    ui = UI(browser, live_url)
    ui.log_in("alice")
    ui.reload_until(lambda: len(ui.twit_texts()) == 5, "bob's twits in alice's stream")

    # Tab from the top of the page: the skip link first, then into the stream.
    _keys(browser, Keys.TAB)
    assert _active(browser)["text"] == "Skip to your stream"
    _keys(browser, Keys.ENTER)
    tabs = 1
    while "twit-like" not in _active(browser)["cls"]:
        _keys(browser, Keys.TAB)
        tabs += 1
        assert tabs <= MAX_TABS_TO_LIKE, f"past {_active(browser)}"
    assert _active(browser)["twit"] == f"t-{newest_first[0]}"

    ui.open("/")
    _keys(browser, "j")
    assert _active(browser)["twit"] == f"t-{newest_first[0]}"
    _keys(browser, "j", "j")
    assert _active(browser)["twit"] == f"t-{newest_first[2]}"
    _keys(browser, "k")
    assert _active(browser)["twit"] == f"t-{newest_first[1]}"
    _keys(browser, "l")
    like = f"#t-{newest_first[1]} .twit-like"
    read = "const e = document.querySelector(arguments[0]); return e && e.innerText;"
    WebDriverWait(browser, 10).until(lambda d: d.execute_script(read, like) == "♥ Liked · 1")
    assert services.get_twit(newest_first[1]).likes == 1
    assert _active(browser)["twit"] == f"t-{newest_first[1]}"  # still there

    # ? opens the list, Escape closes it.
    dialog = browser.find_element(By.ID, "shortcuts")
    assert not dialog.is_displayed()
    _keys(browser, "?")
    assert dialog.is_displayed()
    assert "Like or unlike the twit" in dialog.text
    _keys(browser, Keys.ESCAPE)
    assert not dialog.is_displayed()

    # n: the composer, where j is a letter like any other.
    _keys(browser, "n")
    assert _active(browser)["name"] == "text"
    _keys(browser, "jk")
    assert browser.find_element(By.CSS_SELECTOR, "#compose textarea").get_attribute("value") == "jk"
    assert _active(browser)["name"] == "text"

    # r: the selected twit's thread, ready to reply.
    ui.open("/")
    _keys(browser, "j", "j", "r")
    WebDriverWait(browser, 15).until(lambda d: "#reply" in d.current_url)
    assert ui.path() == f"/u/bob/t/{newest_first[1]}#reply"
    WebDriverWait(browser, 10).until(lambda d: _active(d)["name"] == "text")

    for scheme in SCHEMES:
        _color_scheme(browser, scheme)
        for label, width in WIDTHS.items():
            browser.set_window_size(width, 900)
            ui.open("/")
            _keys(browser, "j", "?")
            ui.screenshot(f"keyboard-help-{label}-{scheme}")
    _color_scheme(browser, "light")
