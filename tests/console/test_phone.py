"""The console on a phone (390 px) and on a desktop (1280 px), in light and
dark, driven in headless Chromium against a real web server and worker
(tests/browser.py). Screenshots of every page go to
test-artifacts/screenshots/console-phone-*.png for a person to look at.

What is asserted is what a person would see: no table column squeezed
narrower than MIN_COLUMN_PX (a table wider than the screen scrolls inside
its own box instead, and the page itself never scrolls sideways), charts
with a y-axis and a labelled busiest bucket inside the plot, a fan-out
panel that reloads itself only while a fan-out is pending, and a
confirmation before a disable or a delete.
"""

from __future__ import annotations

import time
from typing import Any

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from feeds.types import Twit
from tests.browser import UI
from tests.helpers import register
from tests.jobqueue import jobs_recorded

WIDTHS = {"desktop": 1280, "phone": 390}
SCHEMES = ("light", "dark")
# Narrower than this, a header like "FOLLOWERS" or a date breaks letter by letter.
MIN_COLUMN_PX = 72

# Every table on a page: its header cells' widths, and whether its box scrolls.
MEASURE_TABLES = """
return [...document.querySelectorAll('table.data')].map(t => {
  const wrap = t.closest('.table-wrap');
  if (getComputedStyle(t).display === 'block') {  // stacked: its cells are the columns
    return {fits: true, scrolls: false, cols: [...t.querySelectorAll('tbody td')]
      .filter(td => td.offsetParent).map(td => td.getBoundingClientRect().width)};
  }
  return {
    cols: [...t.querySelectorAll('thead th')].map(th => th.getBoundingClientRect().width),
    scrolls: !!wrap && wrap.scrollWidth > wrap.clientWidth
      && getComputedStyle(wrap).overflowX === 'auto',
    fits: t.getBoundingClientRect().width <= (wrap || t).clientWidth + 1,
  };
});
"""

# The first elements that reach past the window's right edge, to name the culprit.
FIND_WIDE = """
return [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8)
  .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
"""

# Every chart: its y-axis labels, and whether its busiest-bucket label lies
# inside the chart's box (a label off the edge would be cut off).
MEASURE_CHARTS = """
return [...document.querySelectorAll('svg.chart')].map(svg => {
  const box = svg.getBoundingClientRect();
  const inside = e => { const r = e.getBoundingClientRect();
    return r.left >= box.left - 1 && r.right <= box.right + 1
      && r.top >= box.top - 1 && r.bottom <= box.bottom + 1; };
  return {
    y_ticks: [...svg.querySelectorAll('.chart-y-tick')].map(e => e.textContent),
    busiest: [...svg.querySelectorAll('.chart-busiest')].map(e => [e.textContent, inside(e)]),
    empty: svg.textContent.includes('no rows'),
  };
});
"""


def _scheme(browser: WebDriver, scheme: str) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


def _check_layout(browser: WebDriver, where: str) -> None:
    width = browser.execute_script("return window.innerWidth")
    page_width = browser.execute_script("return document.documentElement.scrollWidth")
    wide = browser.execute_script(FIND_WIDE)
    assert page_width <= width, f"{where}: the page scrolls sideways: {page_width} px by {wide}"
    tables: list[dict[str, Any]] = browser.execute_script(MEASURE_TABLES)
    for i, t in enumerate(tables):
        narrow = [round(w) for w in t["cols"] if w < MIN_COLUMN_PX]
        assert not narrow, f"{where}: table {i} has columns of {narrow} px"
        assert t["fits"] or t["scrolls"], f"{where}: table {i} overflows without scrolling"


def _shoot(ui: UI, name: str, size: str, scheme: str) -> None:
    # Shot first, so that a page that fails the check can be looked at.
    ui.screenshot(f"console-phone-{name}-{size}-{scheme}")
    _check_layout(ui.driver, f"{name} at {size}, {scheme}")


def _shoot_both(ui: UI, name: str, size: str) -> None:
    for scheme in SCHEMES:
        _scheme(ui.driver, scheme)
        assert ui.driver.execute_script(
            f"return matchMedia('(prefers-color-scheme: {scheme})').matches"
        ), scheme
        _shoot(ui, name, size, scheme)


def test_every_console_page_fits_a_phone_and_a_desktop_in_light_and_dark(
    browser: WebDriver, live_url: str
) -> None:
    ui = UI(browser, live_url)
    ui.sign_up("sam", "Sam Staff")
    services.set_staff("sam")
    for userid in ("ada", "ben", "cyd"):
        register(userid)
    services.follow("ben", "ada")
    services.follow("cyd", "ada")
    for text in ("Notes on the Analytical Engine.", "Bernoulli numbers, step by step."):
        services.post_twit("ada", text)
    with jobs_recorded():  # never queued: pending until queued again
        stuck = services.post_twit("ada", "A fan-out that the broker never saw.")

    pages = {
        "overview": "/console/",
        "tables": "/console/tables",
        "rows": "/console/rows?table=users&by=userid&prefix=",
        "keys": "/console/keys?table=all",
        "fanout": "/console/fanout",
        "users": "/console/users",
        "user": "/console/users/ada",
        "audit": "/console/audit",
    }
    # Each page is loaded once per width and shot in both schemes: the
    # scheme is a media feature, applied to the page as it stands.
    for size, width in WIDTHS.items():
        browser.set_window_size(width, 900)
        assert browser.execute_script("return window.innerWidth") == width
        for name, path in pages.items():
            ui.open(path)
            _shoot_both(ui, name, size)
        ui.open("/console/users/cyd")
        ui.click("form[action='/console/users/cyd/disable'] button")
        assert "Disable @cyd?" in ui.text()
        _shoot_both(ui, "confirm-disable", size)
        ui.open("/console/users/ada")
        ui.click("li.mod-twit:first-child form button")
        assert "Delete this twit of @ada?" in ui.text()
        _shoot_both(ui, "confirm-delete", size)
    _scheme(browser, "light")

    # Asked, and cancelled: nothing changed.
    ui.click("a.button-secondary")
    assert ui.path() == "/console/users/ada"
    assert not services.get_user("cyd").disabled
    assert len(services.timeline("ada").items) == 3

    # The charts: a y-axis in percent, the busiest bucket labelled inside the plot.
    ui.open("/console/keys?table=all")
    charts: list[dict[str, Any]] = browser.execute_script(MEASURE_CHARTS)
    assert charts
    for chart in charts:
        assert len(chart["y_ticks"]) == 3 and chart["y_ticks"][0] == "0%", chart
        if not chart["empty"]:
            [(label, inside)] = chart["busiest"]
            assert label.startswith("0x") and label.endswith("%") and inside, chart

    _fanout_refreshes_itself_while_pending(ui, stuck)

    # Confirmed, the delete and the disable happen.
    ui.open("/console/users/ada")
    ui.click("li.mod-twit:first-child form button")
    ui.click("form.confirm-actions button[type=submit]")
    assert "@ada's twit is deleted, and removed from every stream." in ui.text()
    ui.open("/console/users/cyd")
    ui.click("form[action='/console/users/cyd/disable'] button")
    ui.click("form.confirm-actions button[type=submit]")
    assert "@cyd's account is disabled." in ui.text()
    assert services.get_user("cyd").disabled


def _reloaded_within(ui: UI, seconds: float) -> bool:
    """Whether the page reloads itself within ``seconds``: a mark set on the
    window by the test is gone after a reload."""
    ui.driver.execute_script("window.__notReloaded = true")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            if not ui.driver.execute_script("return window.__notReloaded === true"):
                return True
        except WebDriverException:  # the page is being replaced right now
            continue
    return False


def _text(ui: UI) -> str:
    """The page's text, or "" while the page reloads."""
    try:
        return ui.text()
    except WebDriverException:
        return ""


def _fanout_refreshes_itself_while_pending(ui: UI, stuck: Twit) -> None:
    ui.open("/console/fanout")
    assert stuck.id in ui.text() and "refreshes itself" in ui.text()
    assert ui.driver.find_elements(By.CSS_SELECTOR, "meta[http-equiv=refresh]")
    assert _reloaded_within(ui, 10), "the fan-out panel did not refresh itself"
    ui.wait_for("main")
    # Queued again in the browser: the worker delivers it, and the panel,
    # refreshing itself, shows nothing pending and then stops refreshing.
    ui.click(f"form[action='/console/fanout/requeue'] input[value='{stuck.id}'] ~ button")
    deadline = time.monotonic() + 20
    while "No fan-out is pending" not in _text(ui):
        assert time.monotonic() < deadline, _text(ui)
        time.sleep(0.5)
    assert "does not refresh itself" in ui.text()
    assert ui.driver.find_elements(By.LINK_TEXT, "Refresh now")
    # Its one way to refresh is a meta refresh (no script: the CSP is
    # strict), so its absence is the panel stopping, seen without waiting.
    assert not ui.driver.find_elements(By.CSS_SELECTOR, "meta[http-equiv=refresh]")
