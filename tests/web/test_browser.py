"""The web UI driven in headless Chromium, against a real web server
(tests/browser.py: runserver, a Celery worker, Selenium). Screenshots of the
main pages go to test-artifacts/screenshots/ for a person to look at.
"""

from __future__ import annotations

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from tests.browser import PASSWORD, UI

from .helpers import post_in_order


def test_sign_up_follow_post_read_page_and_unfollow_in_a_browser(
    browser: WebDriver, live_url: str
) -> None:
    ui = UI(browser, live_url)

    ui.open("/")
    assert "Create an account" in ui.text()
    ui.screenshot("01-landing")

    # A mistake on the sign-up form is shown next to the field, input kept.
    ui.open("/signup")
    ui.fill({"userid": "no", "name": "Ada Lovelace", "email": "ada@example.com"})
    ui.fill({"password": PASSWORD})
    ui.submit()
    error = browser.find_element(By.ID, "id_userid_error")
    assert "A userid is 3 to 20 letters" in error.text
    assert browser.find_element(By.NAME, "name").get_attribute("value") == "Ada Lovelace"
    ui.screenshot("02-signup-error")

    ui.sign_up("ada", "Ada Lovelace")
    assert "Your home stream is empty" in ui.text()
    ui.log_out()
    ui.sign_up("ben", "Ben Bitdiddle")
    # The empty home suggests ada; following her from there stays on home.
    assert "Ada Lovelace" in ui.text()
    ui.screenshot("03-home-empty")
    ui.press("form[action='/u/ada/follow'] button", "form[action='/u/ada/unfollow']")
    assert ui.path() == "/"
    ui.log_out()

    # Enough older twits by ada for a second page of ben's stream, then one
    # she posts in the browser.
    post_in_order("ada", [f"Note {i:02d} on the Analytical Engine." for i in range(24)])
    ui.log_in("ada")
    ui.fill({"text": "   "})
    ui.submit()
    assert "Write something to post." in browser.find_element(By.ID, "id_text_error").text
    ui.screenshot("04-home-post-error")
    ui.fill({"text": "Hello from the browser!\nA second line <b>not bold</b>."})
    ui.submit()
    assert "Your twit is posted." in ui.text()
    ui.log_out()

    ui.log_in("ben")
    ui.reload_until(
        lambda: (
            bool(ui.twit_texts())
            and ui.twit_texts()[0] == "Hello from the browser!\nA second line <b>not bold</b>."
        ),
        "ada's twit on ben's home",
    )
    assert len(ui.twit_texts()) == 20
    ui.screenshot("05-home-stream")

    ui.click("a[rel=next]")
    assert ui.path().startswith("/?cursor=")
    assert ui.twit_texts() == [f"Note {i:02d} on the Analytical Engine." for i in (4, 3, 2, 1, 0)]
    ui.click("a.button-secondary[href='/']")
    assert ui.twit_texts()[0].startswith("Hello from the browser!")

    # The permalink, from the twit's time.
    browser.find_element(By.CSS_SELECTOR, ".twit-time").click()
    ui.wait_for(".permalink")
    assert ui.path().startswith("/u/ada/t/")
    ui.screenshot("06-permalink")

    ui.open("/u/ada")
    assert "25 twits" in ui.text()
    assert "1 follower" in ui.text()
    ui.screenshot("07-profile")

    ui.open("/u/ada/followers")
    assert "Ben Bitdiddle" in ui.text()
    ui.screenshot("08-followers")

    ui.open("/u/nobody_here")
    assert "Nothing here" in ui.text()
    ui.screenshot("09-not-found")

    # Unfollow: ada's twits leave ben's home.
    ui.open("/u/ada")
    ui.click("form[action='/u/ada/unfollow'] button")
    assert "0 followers" in ui.text()
    ui.open("/")
    ui.reload_until(lambda: not ui.twit_texts(), "ada's twits gone from ben's home")

    # A phone-sized window: the same pages stay usable.
    browser.set_window_size(390, 900)
    ui.open("/u/ada")
    ui.screenshot("10-profile-narrow")
