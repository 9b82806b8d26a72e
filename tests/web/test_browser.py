"""The web UI driven in headless Chromium, against a real web server.

``manage.py runserver`` runs as a child process on a free port, pointed at
this test's tables on the local HBase server; Debian's chromium and
chromedriver drive it through Selenium. Screenshots of the main pages go to
test-artifacts/screenshots/ for a person to look at.

Without chromium this test skips locally; with CI=true it fails, as the
project installs chromium itself (scripts/testall.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.conftest import ServerAddr
from twitbase.processes import CeleryWorkerProcess, RedisProcess

from .conftest import PASSWORD, post_in_order

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
IN_CI = os.environ.get("CI", "").lower() == "true"
# Fan-out may run in background workers: a followee's twit reaches a stream
# a little after it is posted, so pages are reloaded until it shows.
FANOUT_WAIT_S = 20.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"runserver exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in {timeout}s:\n{log.read_text(errors='replace')}")


@pytest.fixture
def live_url(web: ServerAddr, redis_broker: RedisProcess, tmp_path: Path) -> Iterator[str]:
    """The base URL of ``manage.py runserver`` serving this test's tables, with
    a real Celery worker (and the test session's Redis) doing the fan-out."""
    port = _free_port()
    env = {
        **os.environ,
        "TWITBASE_HBASE_HOST": settings.TWITBASE_HBASE_HOST,
        "TWITBASE_HBASE_PORT": str(settings.TWITBASE_HBASE_PORT),
        "TWITBASE_TABLE_PREFIX": settings.TWITBASE_TABLE_PREFIX,
        "DJANGO_DEBUG": "1",
        # The test posts a page's worth of twits in a few seconds.
        "TWITBASE_POSTS_PER_MINUTE": "1000",
        "CELERY_BROKER_URL": redis_broker.url,
        "PYTHONUNBUFFERED": "1",
    }
    worker = CeleryWorkerProcess(env, tmp_path / "worker.log", concurrency=1).start()
    log = tmp_path / "runserver.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(f"{url}/healthz", proc, log, timeout=60)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        worker.stop()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
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

    def log_in(self, userid: str) -> None:
        self.open("/login")
        self.fill({"userid": userid, "password": PASSWORD})
        self.submit()
        assert self.path() == "/", self.text()

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
    ui.click("form[action='/u/ada/follow'] button")
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
