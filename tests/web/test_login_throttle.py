"""Failed log-ins are throttled per account and per client address (issue 9)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import accounts, ratelimit
from feeds.types import User
from tests.helpers import PASSWORD, ServerAddr, hold_rate_clock


@pytest.fixture
def limits(web: ServerAddr, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 3
    settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS = 5
    hold_rate_clock(monkeypatch)  # every attempt in one window
    return settings


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The password hashes log-ins compute, by name, as they happen."""
    calls: list[str] = []

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(accounts, "check_password", counting("check", accounts.check_password))
    monkeypatch.setattr(accounts, "make_password", counting("make", accounts.make_password))
    yield calls


def attempt(userid: str, password: str, address: str = "127.0.0.1") -> Any:
    return Client().post("/login", {"userid": userid, "password": password}, REMOTE_ADDR=address)


def test_an_account_is_throttled_after_its_failures_without_hashing(
    limits: Settings, alice: User, hashes: list[str]
) -> None:
    for i in range(3):
        assert attempt("alice", f"wrong-{i}", f"10.0.0.{i}").status_code == 400
    assert hashes == ["check"] * 3
    # Even the right password, from yet another address: refused, unhashed.
    response = attempt("alice", PASSWORD, "10.0.0.99")
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= limits.TWITBASE_LOGIN_WINDOW_S
    html = response.content.decode()
    assert "Too many failed log-ins for this account. Try again in" in html
    assert 'value="alice"' in html
    assert hashes == ["check"] * 3
    # Other accounts are not affected.
    services.register("dora", "Dora", "dora@example.com", PASSWORD)
    assert attempt("dora", PASSWORD, "10.0.0.99").status_code == 302


def test_an_address_is_throttled_across_accounts(
    limits: Settings, alice: User, bob: User, hashes: list[str]
) -> None:
    names = ["alice", "bob", "nobody", "alice", "bob"]
    for name in names:
        assert attempt(name, "wrong-password", "192.0.2.7").status_code == 400
    assert len(hashes) == 5
    response = attempt("bob", PASSWORD, "192.0.2.7")
    assert response.status_code == 429
    assert "Too many failed log-ins from your address" in response.content.decode()
    assert len(hashes) == 5
    # From another address, bob (2 failures, limit 3) gets in.
    assert attempt("bob", PASSWORD, "192.0.2.8").status_code == 302


def test_successes_are_not_counted(limits: Settings, alice: User) -> None:
    for _ in range(6):
        assert attempt("alice", PASSWORD).status_code == 302


def test_the_window_ends(limits: Settings, alice: User, monkeypatch: pytest.MonkeyPatch) -> None:
    limits.TWITBASE_LOGIN_WINDOW_S = 60
    held = hold_rate_clock(monkeypatch)
    for _ in range(3):
        attempt("alice", "wrong-password")
    response = attempt("alice", PASSWORD)
    assert response.status_code == 429
    retry = int(response["Retry-After"])
    assert 0 < retry <= 60
    # As if the window had passed: the next window starts with no failures.
    later = held + retry + 0.5
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: later))
    assert attempt("alice", PASSWORD).status_code == 302
