"""Password reset and two-factor sign-in in headless Chromium, against a
real web server whose email goes to a real SMTP server (aiosmtpd): forget
the password, follow the emailed link, set a new one; turn two-factor
sign-in on from its page and log in with a recovery code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pyotp
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from devtools.processes import RedisProcess
from tests.browser import UI, live_server
from tests.helpers import ServerAddr
from tests.smtp import Inbox, body, smtp_server

NEW_PASSWORD = "a-brand-new-secret-9"


@pytest.fixture
def site(
    local_twitbase: ServerAddr, redis_broker: RedisProcess, tmp_path: Path
) -> Iterator[tuple[str, Inbox]]:
    """The web server's base URL, sending its email by SMTP to the inbox."""
    with smtp_server() as inbox:
        email = {
            "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "DJANGO_EMAIL_HOST": inbox.host,
            "DJANGO_EMAIL_PORT": str(inbox.port),
        }
        with live_server(redis_broker, tmp_path, email) as url:
            yield url, inbox


def test_reset_a_forgotten_password_then_log_in_with_a_second_factor(
    browser: WebDriver, site: tuple[str, Inbox]
) -> None:
    url, inbox = site
    ui = UI(browser, url)
    ui.sign_up("dora", "Dora")
    ui.log_out()

    ui.open("/login")
    ui.click("a[href='/password/reset']")
    ui.fill({"userid": "dora"})
    ui.submit()
    assert "Check your email" in ui.text()
    link = re.search(r"http://[^/\s]+(/password/reset/[A-Za-z0-9_-]+)", body(inbox.wait_for(1)[0]))
    assert link is not None
    ui.open(link.group(1))
    ui.fill({"new_password": NEW_PASSWORD})
    ui.submit()
    assert ui.path() == "/login" and "is changed" in ui.text()
    ui.fill({"userid": "dora", "password": NEW_PASSWORD})
    ui.submit()
    assert ui.path() == "/", ui.text()

    ui.open("/account/2fa")
    ui.submit()  # "Set up two-factor sign-in"
    secret = browser.find_element(By.CSS_SELECTOR, "code.totp-secret").text
    ui.fill({"code": pyotp.TOTP(secret).now()})
    ui.submit()
    assert "Your recovery codes" in ui.text()
    codes = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".recovery-codes code")]
    assert len(codes) == 10
    ui.log_out()

    ui.open("/login")
    ui.fill({"userid": "dora", "password": NEW_PASSWORD})
    ui.submit()
    assert ui.path() == "/login/code", ui.text()
    ui.fill({"code": codes[0]})
    ui.submit()
    assert ui.path() == "/", ui.text()
