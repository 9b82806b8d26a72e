"""Driving the site in headless Chromium, against a real web server: the
helpers of the browser tests (tests/web, tests/console).

``manage.py runserver`` runs as a child process on a free port, pointed at
the test's tables on the local HBase server, with a real Celery worker and
the session's Redis; Debian's chromium and chromedriver drive it through
Selenium. Screenshots go to test-artifacts/screenshots/ for a person to look
at. The fixtures (``live_url``, ``browser``) are in tests/conftest.py.

Without chromium a browser test skips locally; with CI=true it fails, as the
project installs chromium itself (scripts/testall.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from devtools.processes import CeleryWorkerProcess, RedisProcess, WebServerProcess

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
IN_CI = os.environ.get("CI", "").lower() == "true"
PASSWORD = "password-123"
# Fan-out may run in background workers: a followee's twit reaches a stream
# a little after it is posted, so pages are reloaded until it shows.
FANOUT_WAIT_S = 20.0


@contextmanager
def live_server(
    redis_broker: RedisProcess, tmp_path: Path, extra_env: dict[str, str] | None = None
) -> Iterator[str]:
    """The base URL of ``manage.py runserver`` serving the current settings'
    tables, with a real Celery worker (and ``redis_broker``) doing the fan-out.
    ``extra_env``: more settings for both (e.g. a short live-update poll)."""
    env = {
        "TWITBASE_HBASE_HOST": settings.TWITBASE_HBASE_HOST,
        "TWITBASE_HBASE_PORT": str(settings.TWITBASE_HBASE_PORT),
        "TWITBASE_TABLE_PREFIX": settings.TWITBASE_TABLE_PREFIX,
        "DJANGO_DEBUG": "1",
        # A test posts a page's worth of twits in a few seconds.
        "TWITBASE_POSTS_PER_MINUTE": "1000",
        "CELERY_BROKER_URL": redis_broker.url,
        **(extra_env or {}),
    }
    with (
        CeleryWorkerProcess(env, tmp_path / "worker.log", concurrency=1),
        WebServerProcess(env, tmp_path / "runserver.log") as web,
    ):
        yield web.url


@contextmanager
def chromium(tmp_path: Path) -> Iterator[WebDriver]:
    """Headless Chromium; skips the test (fails it in CI) if it is not installed."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        reason = f"{', '.join(missing)} not installed (Debian: chromium chromium-driver)"
        if IN_CI:
            pytest.fail(reason + "; CI needs the browser test")
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1200,900",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(arg)
    # The console log, where Chromium reports what the Content-Security-Policy blocked.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


class UI:
    """The few things a person does on the site, as browser actions."""

    def __init__(self, driver: WebDriver, base: str) -> None:
        self.driver = driver
        self.base = base

    def open(self, path: str) -> None:
        self.driver.get(self.base + path)

    def path(self) -> str:
        return str(self.driver.current_url).removeprefix(self.base)

    def text(self) -> str:
        return str(self.driver.find_element(By.TAG_NAME, "main").text)

    def fill(self, fields: dict[str, str]) -> None:
        for name, value in fields.items():
            box = self.driver.find_element(By.NAME, name)
            box.clear()
            box.send_keys(value)

    def click(self, selector: str) -> None:
        """Click and wait for the page it leads to (every action here is a form post)."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.CSS_SELECTOR, selector).click()
        WebDriverWait(self.driver, 15).until(lambda d: _is_stale(old))
        self.wait_for("main")

    def press(self, selector: str, then: str) -> None:
        """Click a button that acts in place (feeds/static/feeds/inplace.js:
        like, repost, a list's follow) and wait for ``then`` to show."""
        self.driver.find_element(By.CSS_SELECTOR, selector).click()
        self.wait_for(then)

    def wait_for(self, selector: str) -> None:
        WebDriverWait(self.driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, selector))

    def submit(self) -> None:
        self.click("main form button[type=submit]")

    def sign_up(self, userid: str, name: str) -> None:
        self.open("/signup")
        self.fill(
            {"userid": userid, "name": name, "email": f"{userid}@example.com", "password": PASSWORD}
        )
        self.submit()
        assert self.path() == "/", self.text()

    def log_in(self, userid: str, then: str = "/") -> None:
        self.open("/login")
        self.fill({"userid": userid, "password": PASSWORD})
        self.submit()
        assert self.path() == then, self.text()

    def log_out(self) -> None:
        self.click("header form button[type=submit]")
        assert "You are logged out." in self.text()

    def twit_texts(self) -> list[str]:
        return [str(e.text) for e in self.driver.find_elements(By.CSS_SELECTOR, ".twit-text")]

    def reload_until(self, check: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + FANOUT_WAIT_S
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{what}: not after {FANOUT_WAIT_S}s; page shows {self.text()}"
                )
            time.sleep(0.5)
            self.driver.refresh()

    def screenshot(self, name: str) -> None:
        """The whole page (the window grown to its height), as a PNG."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        width = self.driver.get_window_size()["width"]
        height = int(self.driver.execute_script("return document.documentElement.scrollHeight"))
        self.driver.set_window_size(width, min(max(height + 140, 600), 4000))
        self.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
        self.driver.set_window_size(width, 900)


def _is_stale(element: object) -> bool:
    try:
        element.is_enabled()  # type: ignore[attr-defined]
    except WebDriverException:
        return True
    return False
