"""Replies in headless Chromium, against a real web server (tests/browser.py):
replying from a stream's Reply action, whose thread opens with the cursor in
the reply box, which posts in place and shows your reply under it (without
JavaScript, back to the thread with your reply in view); the
twit's body opens its thread; screenshots of a permalink with a chain above
and replies below at desktop (1280) and phone (390) widths, light and dark,
in test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import WebDriverWait

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def _in_view(browser: WebDriver, element_id: str) -> bool:
    return bool(
        browser.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return r.top >= 0 && r.bottom <= window.innerHeight;",
            element_id,
        )
    )


def test_reply_from_a_permalink_and_screenshots_of_a_thread(
    browser: WebDriver, live_url: str, settings: Settings
) -> None:
    # The web server checks passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    for userid in ("alice", "bob", "charlie"):
        register(userid)
    root = services.post_twit("alice", "Which HBase row key would you pick for a thread?")
    middle = services.post_twit(
        "bob", "The parent's key, then forward time: one scan, oldest first.", reply_to=root.id
    )
    shown = services.post_twit(
        "alice",
        "And the reply's own key parts after it, so two replies never clash.",
        reply_to=middle.id,
    )
    for who, text in [
        ("charlie", "Agreed. Reversed time would read the thread backwards."),
        ("bob", "And the count sits on the parent's row, beside likes and reposts later."),
    ]:
        services.post_twit(who, text, reply_to=shown.id)

    ui = UI(browser, live_url)
    ui.log_in("bob")
    # The body of a twit in a stream opens its thread; its #tag stays a link of its own.
    tagged = services.post_twit("alice", "Threads are one #scan away.")
    ui.open("/u/alice")
    at_point = (
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        "return e.closest('a') && e.closest('a').getAttribute('href');"
    )
    body = f"#t-{tagged.id} .twit-text"
    assert browser.execute_script(at_point, body) == f"/u/alice/t/{tagged.id}"
    assert browser.execute_script(at_point, body + " a") == "/tags/scan"
    old = browser.find_element(By.TAG_NAME, "html")
    ActionChains(browser).move_to_element(
        browser.find_element(By.CSS_SELECTOR, body)
    ).click().perform()
    WebDriverWait(browser, 15).until(staleness_of(old))
    assert ui.path() == f"/u/alice/t/{tagged.id}"
    # Reply from the stream: the thread, the cursor in its reply box.
    ui.open("/u/alice")
    ui.click(f"#t-{shown.id} .twit-reply")
    assert ui.path() == f"/u/alice/t/{shown.id}#reply"
    WebDriverWait(browser, 10).until(
        lambda d: d.switch_to.active_element.get_attribute("name") == "text"
    )
    assert ui.twit_texts()[:3] == [root.text, middle.text, shown.text]
    browser.switch_to.active_element.send_keys("Posted from the browser.")
    browser.execute_script("window.notReloaded = true;")
    browser.find_element(By.CSS_SELECTOR, ".reply-box button[type=submit]").click()
    # In place (inplace.js): the reply first under the heading, the box empty
    # for another, the page neither reloaded nor left.
    WebDriverWait(browser, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".my-reply"))
    (mine,) = [
        t for t in services.replies(shown.id).items if t.userid == "bob" and "browser" in t.text
    ]
    assert browser.execute_script("return window.notReloaded") is True
    assert ui.path() == f"/u/alice/t/{shown.id}#reply"
    assert browser.find_element(By.CSS_SELECTOR, f".my-reply #t-{mine.id}").is_displayed()
    assert browser.find_element(By.ID, "replies-title").text == "3 replies"
    action = browser.find_element(By.CSS_SELECTOR, ".permalink .twit-reply")
    assert action.get_attribute("textContent") == "↩ Reply · 3 replies"  # "replies" said only
    assert browser.find_element(By.CSS_SELECTOR, "#reply textarea").get_attribute("value") == ""
    assert _in_view(browser, f"t-{mine.id}")
    _shoot(ui, "replies-in-place", lambda: None)
    # Without JavaScript the form comes back to the thread at the reply: on
    # screen, last of the replies (tests/web/test_replies.py posts it so).
    ui.open(f"/u/alice/t/{shown.id}?reply={mine.id}#t-{mine.id}")
    assert ui.twit_texts()[0] == root.text
    assert ui.twit_texts()[-1] == "Posted from the browser."
    assert _in_view(browser, f"t-{mine.id}")
    _shoot(ui, "replies-after-reply", lambda: ui.open(ui.path()))

    _shoot(ui, "replies-permalink", lambda: ui.open(f"/u/alice/t/{shown.id}"))
    services.delete_twit("alice", root.id)
    _shoot(ui, "replies-deleted-parent", lambda: ui.open(f"/u/bob/t/{middle.id}"))
    assert "This twit was deleted." in ui.text()
    _shoot(ui, "replies-home", lambda: ui.open("/"))
