"""The password reset pages, with the email sent over a real SMTP server
(aiosmtpd), and the two-factor pages: the log-in's second step and the
settings (issue 36)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pyotp
import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import twofactor
from feeds.types import User
from tests.helpers import PASSWORD
from tests.smtp import Inbox, body, smtp_server

from .helpers import log_in, logged_in

NEW_PASSWORD = "a-brand-new-secret-9"
LINK = re.compile(r"http://testserver(/password/reset/[A-Za-z0-9_-]+)")


@pytest.fixture
def smtp(settings: Settings) -> Iterator[Inbox]:
    """A real SMTP server on a free port, and Django's SMTP backend sending to it."""
    with smtp_server() as inbox:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST = inbox.host
        settings.EMAIL_PORT = inbox.port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.DEFAULT_FROM_EMAIL = "TwitBase <noreply@twitbase.example>"
        yield inbox


def emailed_link(inbox: Inbox, count: int = 1) -> str:
    message = inbox.wait_for(count)[-1]
    found = LINK.search(body(message))
    assert found is not None, body(message)
    return found.group(1)


def test_the_emailed_link_sets_a_new_password_end_to_end(alice: User, smtp: Inbox) -> None:
    other = logged_in("alice")
    page = Client().get("/login")
    assert 'href="/password/reset"' in page.content.decode()
    asked = Client().post("/password/reset", {"userid": "alice"})
    assert asked.status_code == 200
    assert "Check your email" in asked.content.decode()
    message = smtp.wait_for(1)[0]
    assert message["To"] == "alice@example.com"
    assert message["X-Rcpt-To"] == "alice@example.com"
    assert message["From"] == "TwitBase <noreply@twitbase.example>"
    assert message["Subject"] == "Reset your TwitBase password"
    link = emailed_link(smtp)

    client = Client()
    form = client.get(link)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    weak = client.post(link, {"new_password": "12345678"})
    assert weak.status_code == 400 and "This password is too common." in weak.content.decode()
    done = client.post(link, {"new_password": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/login"
    assert "is changed" in client.get("/login").content.decode()

    assert 'href="/signup"' in other.get("/").content.decode()  # logged out
    log_in(Client(), "alice", NEW_PASSWORD)
    used = client.get(link)
    assert used.status_code == 400 and "This link does not work" in used.content.decode()
    assert client.post(link, {"new_password": "other-new-secret-3"}).status_code == 400
    assert services.authenticate("alice", NEW_PASSWORD) is not None


def test_asking_for_an_unknown_userid_looks_the_same_and_sends_nothing(
    alice: User, smtp: Inbox
) -> None:
    known = Client().post("/password/reset", {"userid": "alice"})
    unknown = Client().post("/password/reset", {"userid": "nobody"})
    assert known.status_code == unknown.status_code == 200
    assert known.content == unknown.content
    smtp.wait_for(1)
    assert len(smtp.messages) == 1


def test_a_made_up_link_says_it_does_not_work(alice: User) -> None:
    response = Client().get("/password/reset/not-a-token")
    assert response.status_code == 400
    assert 'href="/password/reset"' in response.content.decode()


def test_two_factor_log_in_asks_for_a_code_on_a_second_page(alice: User) -> None:
    client = logged_in("alice")
    settings_page = client.get("/account/2fa")
    assert "Set up two-factor sign-in" in settings_page.content.decode()
    assert client.post("/account/2fa", {"action": "begin"}).status_code == 302
    shown = client.get("/account/2fa").content.decode()
    secret = re.search(r'<code class="totp-secret">([A-Z2-7]+)</code>', shown)
    assert secret is not None and "otpauth://totp/TwitBase:alice" in shown
    totp = pyotp.TOTP(secret.group(1))
    wrong = client.post("/account/2fa", {"action": "confirm", "code": "12345"})
    assert wrong.status_code == 400 and secret.group(1) in wrong.content.decode()
    turned_on = client.post("/account/2fa", {"action": "confirm", "code": totp.now()})
    html = turned_on.content.decode()
    assert turned_on.status_code == 200 and "Your recovery codes" in html
    codes = re.findall(r"<li><code>([a-z0-9]{5}-[a-z0-9]{5})</code></li>", html)
    assert len(codes) == 10

    browser = Client()
    first = browser.post(
        "/login?next=/u/alice", {"userid": "alice", "password": PASSWORD, "next": "/u/alice"}
    )
    assert first.status_code == 302 and first["Location"] == "/login/code"
    assert 'href="/signup"' in browser.get("/").content.decode()  # not logged in yet
    bad = browser.post("/login/code", {"code": "000000x"})
    assert bad.status_code == 400 and "That code is not right" in bad.content.decode()
    good = browser.post("/login/code", {"code": codes[0]})
    assert good.status_code == 302 and good["Location"] == "/u/alice"
    assert "Log out" in browser.get("/").content.decode()
    assert twofactor.status("alice").recovery_codes_left == 9


def test_the_code_page_without_a_password_first_sends_back_to_log_in(alice: User) -> None:
    response = Client().post("/login/code", {"code": "123456"})
    assert response.status_code == 302 and response["Location"] == "/login"


def test_two_factor_is_turned_off_with_the_password(alice: User) -> None:
    client = logged_in("alice")
    enrolment = twofactor.begin("alice")
    twofactor.confirm("alice", pyotp.TOTP(enrolment.secret).now())
    page = client.get("/account/2fa").content.decode()
    assert "10 recovery codes left" in page
    wrong = client.post("/account/2fa", {"action": "disable", "code": "wrong-password"})
    assert wrong.status_code == 400
    off = client.post("/account/2fa", {"action": "disable", "code": PASSWORD})
    assert off.status_code == 302
    assert not twofactor.enabled("alice")
    log_in(Client(), "alice")
