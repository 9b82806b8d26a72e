"""The staff console driven in headless Chromium, against a real web server
with a real Celery worker (tests/browser.py). Screenshots of each panel go to
test-artifacts/screenshots/console-*.png for a person to look at."""

from __future__ import annotations

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from storage import keys
from storage.schema import SCHEMA
from tests.browser import PASSWORD, UI


def test_staff_moderate_in_the_console_and_others_are_kept_out(
    browser: WebDriver, live_url: str
) -> None:
    ui = UI(browser, live_url)
    # Signed up in the browser: the server hashes passwords its own way.
    for userid, name in (
        ("sam", "Sam Staff"),
        ("ada", "Ada Lovelace"),
        ("ben", "Ben Bitdiddle"),
        ("cyd", "Cy D. Fect"),
    ):
        ui.sign_up(userid, name)
        ui.log_out()
    services.set_staff("sam")
    services.follow("ben", "ada")
    services.follow("cyd", "ada")
    for text in ("Notes on the Analytical Engine.", "Bernoulli numbers, step by step."):
        services.post_twit("ada", text)

    # ada posts in the browser (a real worker fans it out), and has no console.
    ui.log_in("ada")
    ui.fill({"text": "Buy cheap watches at example.com!!!"})
    ui.submit()
    assert "Your twit is posted." in ui.text()
    assert "Console" not in browser.find_element(By.TAG_NAME, "header").text
    ui.open("/console/")
    assert "Staff only" in ui.text()
    ui.screenshot("console-01-403")
    ui.log_out()

    ui.log_in("ben")
    ui.reload_until(
        lambda: "Buy cheap watches at example.com!!!" in ui.twit_texts(), "ada's twit on ben's home"
    )
    ui.log_out()

    # An anonymous visitor is sent to log in, and comes back to the console.
    ui.open("/console/fanout")
    assert ui.path() == "/login?next=/console/fanout"
    ui.fill({"userid": "sam", "password": PASSWORD})
    ui.submit()
    assert ui.path() == "/console/fanout"
    assert "alive" in ui.text()  # the worker's heartbeat, after ada's fan-out
    ui.screenshot("console-03-fanout")

    ui.click("header a[href='/console/']")
    assert "Staff console" in ui.text()
    ui.screenshot("console-02-overview")

    ui.open("/console/tables")
    assert "followedBy" in ui.text() and "md5(reader) + rts + md5(author) + suffix" in ui.text()
    ui.screenshot("console-04-tables")

    ui.open("/console/rows")
    browser.find_element(By.CSS_SELECTOR, "#id_table option[value=twits]").click()
    ui.fill({"prefix": "ada"})
    ui.submit()
    assert "3 rows of twits" in ui.text()
    assert "author @ada" in ui.text()
    ui.screenshot("console-05-rows")

    ui.open("/console/keys")
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2
    ui.click("a[href='?table=all']")
    # One chart per table and per sequential alternative.
    charts = len(SCHEMA) + len(keys.SEQUENTIAL_LAYOUTS)
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart")) == charts
    ui.screenshot("console-06-keys")

    # Disable cyd: the account is marked, and cyd cannot log in.
    ui.open("/console/users")
    ui.screenshot("console-07-users")
    ui.fill({"q": "CYD"})
    ui.click("form[role=search] button")
    assert ui.path() == "/console/users/cyd"
    ui.click("form[action='/console/users/cyd/disable'] button")
    assert "Disable @cyd?" in ui.text()  # asked first, since issue 11
    ui.click("form.confirm-actions button[type=submit]")
    assert "@cyd's account is disabled." in ui.text()
    ui.screenshot("console-08-user-disabled")

    # Delete ada's spam from her page in the console.
    ui.open("/console/users/ada")
    assert "Buy cheap watches" in ui.text()
    ui.screenshot("console-09-user")
    # Newest first: the spam is the first twit on the page.
    ui.click("li.mod-twit:first-child form button")
    assert "Delete this twit of @ada?" in ui.text()
    ui.click("form.confirm-actions button[type=submit]")
    assert "@ada's twit is deleted, and removed from every stream." in ui.text()
    assert "Buy cheap watches" not in ui.text()

    ui.open("/console/audit")
    text = ui.text()
    assert text.index("twit.delete") < text.index("user.disable") < text.index("rows.browse")
    ui.screenshot("console-10-audit")
    ui.log_out()

    ui.open("/login")
    ui.fill({"userid": "cyd", "password": PASSWORD})
    ui.submit()
    # On purpose since issue 9: the right password for a disabled account says so.
    assert "This account is suspended." in ui.text()

    # ben's home stream loses the twit (the worker removes it from every stream).
    ui.log_in("ben")
    ui.reload_until(
        lambda: "Buy cheap watches at example.com!!!" not in ui.twit_texts(),
        "the deleted twit gone from ben's home",
    )
    assert ui.twit_texts() == [
        "Bernoulli numbers, step by step.",
        "Notes on the Analytical Engine.",
    ]
    ui.log_out()

    # A phone-sized window: the console stays usable.
    ui.log_in("sam")
    browser.set_window_size(390, 900)
    ui.open("/console/fanout")
    ui.screenshot("console-11-fanout-narrow")
