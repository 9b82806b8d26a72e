"""OWASP's device cookies: strangers' failed log-ins, from any number of
addresses, lock out strangers but not the owner on a browser that has
logged in before; a device has its own bounded count; changing the
password and deleting the account are the session's, not the guess count's."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import signing
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import auth, services
from feeds.services import ratelimit
from feeds.types import User
from tests.helpers import PASSWORD, ServerAddr, hold_rate_clock

NEW_PASSWORD = "a-new-password-456"


@pytest.fixture
def limits(web: ServerAddr, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 10
    settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS = 5
    settings.TWITBASE_LOGIN_FAILS_PER_DEVICE = 3
    hold_rate_clock(monkeypatch)  # every attempt in one window
    return settings


def attempt(client: Client, userid: str, password: str, address: str = "127.0.0.1") -> Any:
    return client.post("/login", {"userid": userid, "password": password}, REMOTE_ADDR=address)


def owners_browser(userid: str = "alice") -> Client:
    """A browser that logged in as ``userid`` once, then logged out."""
    browser = Client()
    response = attempt(browser, userid, PASSWORD)
    assert response.status_code == 302
    cookie = response.cookies[auth.DEVICE_COOKIE]
    assert cookie["httponly"] and cookie["path"] == "/login" and cookie["samesite"] == "Lax"
    browser.post("/logout")
    return browser


def lock_out(userid: str) -> None:
    """The attack of the issue: eleven wrong passwords, each from its own address."""
    for i in range(11):
        attempt(Client(), userid, f"guess-{i}", f"203.0.113.{i + 1}")


def test_strangers_lock_out_strangers_but_not_the_owners_browser(
    limits: Settings, alice: User
) -> None:
    browser = owners_browser()
    lock_out("alice")
    # Ten guesses were checked; the eleventh, and any stranger now, waits.
    refused = attempt(Client(), "alice", PASSWORD, "198.51.100.1")
    assert refused.status_code == 429
    assert "for this account" in refused.content.decode()
    # The owner, from the browser that logged in before, gets in.
    assert attempt(browser, "alice", PASSWORD, "198.51.100.2").status_code == 302


def test_a_device_gets_its_own_few_guesses(limits: Settings, alice: User) -> None:
    browser = owners_browser()
    for i in range(3):
        assert attempt(browser, "alice", f"wrong-{i}").status_code == 400
    response = attempt(browser, "alice", PASSWORD)
    assert response.status_code == 429
    assert "from this device" in response.content.decode()
    # Its failures are its own: the account's untrusted count is untouched.
    assert attempt(Client(), "alice", PASSWORD, "198.51.100.3").status_code == 302


def test_only_a_valid_cookie_for_that_account_is_trusted(
    limits: Settings, alice: User, bob: User
) -> None:
    bobs_browser = owners_browser("bob")
    lock_out("alice")
    # bob's device token is not alice's; a forged or expired one is no one's.
    assert attempt(bobs_browser, "alice", PASSWORD, "198.51.100.4").status_code == 429
    forged = signing.dumps(["alice", "nonce"], salt="another salt")
    for cookie in (forged, "garbage", bobs_browser.cookies[auth.DEVICE_COOKIE].value + "x"):
        stranger = Client()
        stranger.cookies[auth.DEVICE_COOKIE] = cookie
        assert attempt(stranger, "alice", PASSWORD, "198.51.100.5").status_code == 429
    assert ratelimit._device_nonce(ratelimit.device_token("alice"), "ALICE") is not None


def test_a_locked_out_account_still_changes_its_password_and_is_deleted(
    limits: Settings, alice: User, bob: User
) -> None:
    signed_in = {u: Client() for u in ("alice", "bob")}
    for userid, client in signed_in.items():
        assert attempt(client, userid, PASSWORD).status_code == 302
    lock_out("alice")
    lock_out("bob")
    changed = signed_in["alice"].post(
        "/account", {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert changed.status_code == 302, changed.content.decode()
    assert services.authenticate("alice", NEW_PASSWORD) is not None
    deleted = signed_in["bob"].post("/account/delete", {"password": PASSWORD})
    assert deleted.status_code == 302, deleted.content.decode()
    gone = services.find_user("bob")
    assert gone is None or gone.disabled


def test_wrong_passwords_in_a_session_are_bounded_per_session(
    limits: Settings, alice: User
) -> None:
    client = Client()
    assert attempt(client, "alice", PASSWORD).status_code == 302
    for i in range(3):
        response = client.post(
            "/account", {"current_password": f"wrong-{i}", "new_password": NEW_PASSWORD}
        )
        assert response.status_code == 400
    response = client.post("/account", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert response.status_code == 429
    assert "Too many wrong passwords in this session" in response.content.decode()
    # Another session of the account, and log-in itself, are not held back.
    assert attempt(Client(), "alice", PASSWORD).status_code == 302
