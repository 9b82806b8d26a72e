"""The reports queue driven in headless Chromium (tests/browser.py): a user
reports a twit from its page, staff see it in the queue, sort it, and
delete it after the confirmation. Screenshots go to
test-artifacts/screenshots/console-reports-*.png."""

from __future__ import annotations

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from feeds.services import reports
from tests.browser import UI


def test_a_report_from_a_twit_page_reaches_staff_who_act_on_it(
    browser: WebDriver, live_url: str
) -> None:
    ui = UI(browser, live_url)
    for userid, name in (("sam", "Sam Staff"), ("ada", "Ada Lovelace"), ("ben", "Ben B")):
        ui.sign_up(userid, name)
        ui.log_out()
    services.set_staff("sam")
    spam = services.post_twit("ada", "Buy cheap watches at example.com!!!")
    reports.report(services.get_user("sam"), userid="ada", reason="other")

    # ben reports the twit from its page.
    ui.log_in("ben")
    ui.open(f"/u/ada/t/{spam.id}")
    ui.click("a.report-link")
    assert "Report this twit" in ui.text()
    browser.find_element(By.CSS_SELECTOR, "input[name=reason][value=spam]").click()
    ui.fill({"text": "Ads."})
    ui.screenshot("console-reports-01-form")
    ui.submit()
    assert ui.path() == f"/u/ada/t/{spam.id}"
    assert "the report is with the staff" in ui.text()
    ui.log_out()

    ui.log_in("sam")
    ui.open("/console/reports")
    text = ui.text()
    assert text.index("Buy cheap watches") < text.index("Account @ada")  # newest first
    assert "Ads." in text
    ui.screenshot("console-reports-02-queue")
    ui.click("nav.tabs a[href$='tab=most']")
    assert "the most reported first" in ui.text()

    ui.click("tr[data-subject] button[value=delete]")
    assert "Delete this twit of @ada?" in ui.text()
    ui.click("form.confirm-actions button[type=submit]")
    assert "The reported twit is deleted" in ui.text()
    assert "Buy cheap watches" not in ui.text()
    ui.screenshot("console-reports-03-after")

    ui.open("/console/audit")
    text = ui.text()
    assert text.index("reports.delete") < text.index("twit.delete")
