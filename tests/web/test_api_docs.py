"""``GET /api/docs``: the API's OpenAPI document as a browsable page
(django-ninja's Swagger UI), every script and stylesheet a static file of
this site, and working in Chromium under the site's Content-Security-Policy.
Screenshots at desktop (1280) and phone (390) widths, light and dark, go to
test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.request import urlopen

from django.contrib.staticfiles import finders
from django.test import Client
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from feeds.api.openapi import PATHS
from tests.browser import UI
from tests.helpers import ServerAddr

from .test_pages_browser import _shoot


class _Assets(HTMLParser):
    """The URLs of a page's scripts and stylesheets, and any inline script
    (a ``<script>`` without ``src`` that a browser would run)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts = 0
        self.styles = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script":
            if found.get("src"):
                self.urls.append(str(found["src"]))
            elif found.get("type") != "application/json":  # data, not run
                self.inline_scripts += 1
        elif tag == "link" and found.get("rel") in ("stylesheet", "icon"):
            self.urls.append(str(found["href"]))
        elif tag == "style" or "style" in found:
            self.styles += 1


def _assets(html: str) -> list[str]:
    """The page's script, stylesheet and icon URLs, each a static file of this
    site; there is no inline script or style."""
    assets = _Assets()
    assets.feed(html)
    assert (assets.inline_scripts, assets.styles) == (0, 0)
    scripts = [url for url in assets.urls if url.endswith(".js")]
    assert len(scripts) >= 2 and any(url.endswith(".css") for url in assets.urls)
    for url in assets.urls:
        assert url.startswith("/static/"), url
        assert finders.find(url.removeprefix("/static/")), url
    return assets.urls


def test_the_docs_page_loads_only_this_sites_static_files(web: ServerAddr) -> None:
    response = Client().get("/api/docs")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert _assets(response.content.decode())


def test_the_docs_page_refuses_other_methods_in_json(web: ServerAddr) -> None:
    response = Client().post("/api/docs")
    assert response.status_code == 405
    assert response.json() == {"error": "POST is not allowed here: use GET, HEAD."}
    assert Client().head("/api/docs").status_code == 200


def test_the_docs_page_shows_every_operation_in_chromium_under_the_policy(
    browser: WebDriver, live_url: str
) -> None:
    # The web server answers each of the page's static files.
    with urlopen(live_url + "/api/docs") as page:
        for url in _assets(page.read().decode()):
            with urlopen(live_url + url) as served:
                assert served.status == 200 and served.read(), url
    ui = UI(browser, live_url)
    ui.open("/api/docs")
    operations = sum(len(methods) for methods in PATHS.values())
    WebDriverWait(browser, 20).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) >= operations
    )
    summaries = browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")
    assert "/api/schema" in {str(e.get_attribute("data-path")) for e in summaries}
    assert "TwitBase API" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
    # Open one operation: its parameters and responses render too.
    browser.find_element(By.CSS_SELECTOR, "#operations-default-getSchema button").click()
    ui.wait_for("#operations-default-getSchema .responses-table")
    problems = [
        entry["message"]
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" or "Content Security Policy" in entry["message"]
    ]
    assert problems == []

    def load() -> None:
        ui.open("/api/docs")
        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock"))

    _shoot(ui, "api-docs", load)
