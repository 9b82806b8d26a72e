"""The auth generation and login throttling on both servers (issue 9)."""

from __future__ import annotations

import contextlib
import threading

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import Forbidden, InvalidInput
from feeds.services import ratelimit
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, hold_rate_clock
from tests.waiting import eventually

NEW_PASSWORD = "a-brand-new-secret-9"


def issue(userid: str = "alice") -> str:
    issued = services.issue_token(userid, PASSWORD)
    assert issued is not None
    return issued[0]


def test_log_out_everywhere_revokes_tokens_and_sessions_of_that_user_only(
    alice: User, bob: User
) -> None:
    token, session = issue(), services.start_session(services.get_user("alice"))
    bobs = issue("bob")
    services.log_out_everywhere("alice")
    assert services.token_user(token) is None
    assert services.session_user(session) is None
    assert services.token_user(bobs) == services.get_user("bob")
    assert services.get_user("alice").auth_generation == 1
    assert services.token_user(issue()) == services.get_user("alice")


def test_a_session_id_is_no_api_token_and_a_token_no_session(alice: User) -> None:
    token, session = issue(), services.start_session(services.get_user("alice"))
    assert services.session_user(session) == services.get_user("alice")
    assert services.token_user(session) is None
    assert services.session_user(token) is None


def test_a_password_change_keeps_only_the_callers_credential(alice: User) -> None:
    keep, other = issue(), issue()
    user = services.change_password("alice", PASSWORD, NEW_PASSWORD, keep)
    assert user.auth_generation == 1
    assert services.token_user(keep) == services.get_user("alice")
    assert services.token_user(other) is None
    assert services.authenticate("alice", NEW_PASSWORD) is not None


def test_a_password_change_does_not_revive_a_revoked_credential(alice: User) -> None:
    keep = issue()
    services.revoke_token(keep)
    services.change_password("alice", PASSWORD, NEW_PASSWORD, keep)
    assert services.token_user(keep) is None


def test_new_passwords_are_validated_against_the_account(alice: User) -> None:
    with pytest.raises(InvalidInput) as err:
        services.change_password("alice", PASSWORD, "alice@example.com", "")
    assert err.value.field == "new_password"
    assert err.value.messages == ("The password is too similar to the email address.",)
    with pytest.raises(InvalidInput) as err:
        services.register("hubert", "Hubert Farnsworth", "p@planet.example", "Hubert Farnsworth")
    assert err.value.messages == ("The password is too similar to the name.",)
    with pytest.raises(InvalidInput) as err:
        services.register("dora", "Dora", "d@example.com", "12345678")
    assert err.value.field == "password"
    assert err.value.messages == (
        "This password is too common.",
        "This password is entirely numeric.",
    )


def test_disabling_revokes_for_good_even_racing_log_ins(alice: User) -> None:
    """Log-ins keep going while the account is disabled: every credential
    they got is refused once it is enabled again."""
    issued: list[str] = []
    tries = [0]
    stop = threading.Event()

    def keep_logging_in() -> None:
        while not stop.is_set():
            tries[0] += 1
            with contextlib.suppress(Forbidden):
                issued.append(issue())

    threads = [threading.Thread(target=keep_logging_in) for _ in range(4)]
    for t in threads:
        t.start()
    eventually(lambda: len(issued) > 4, what="log-ins before the disabling")
    services.set_disabled("alice")
    disabled_at = tries[0]
    eventually(lambda: tries[0] > disabled_at + 8, what="log-ins racing the disabling")
    stop.set()
    for t in threads:
        t.join()
    assert len(issued) > 4
    services.set_disabled("alice", False)
    assert [t for t in issued if services.token_user(t) is not None] == []
    assert services.token_user(issue()) is not None


def test_failed_log_ins_are_counted_per_account_and_address(
    alice: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 2
    settings.TWITBASE_LOGIN_FAILS_PER_ADDRESS = 3
    hold_rate_clock(monkeypatch)  # every attempt in one window
    assert services.log_in("alice", "wrong-password", "a1") is None
    assert services.log_in("ALICE", "wrong-password", "a2") is None
    with pytest.raises(ratelimit.RateLimited) as err:
        services.log_in("alice", PASSWORD, "a3")
    assert "for this account" in err.value.message
    # Unknown userids and malformed ones count against the address.
    assert services.log_in("nobody", "wrong-password", "b") is None
    assert services.log_in("no body!", "wrong-password", "b") is None
    assert services.log_in("nobody", "wrong-password", "b") is None
    with pytest.raises(ratelimit.RateLimited) as err:
        services.log_in("bob_is_not_here", PASSWORD, "b")
    assert "from your address" in err.value.message
    assert 0 < err.value.retry_after <= settings.TWITBASE_LOGIN_WINDOW_S


def test_concurrent_guesses_get_no_more_hashes_than_the_limit(
    twitbase: object, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight guesses at once, each worth a slow hash: only the limit's worth
    are admitted, not every one that came before the first was counted."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 3
    now = hold_rate_clock(monkeypatch)  # every guess in one window
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def guess(i: int) -> None:
        start.wait()
        try:
            assert services.log_in("nobody", f"guess-{i}", f"10.1.0.{i}") is None
            outcomes.append("hashed")
        except ratelimit.RateLimited:
            outcomes.append("throttled")

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["hashed"] * 3 + ["throttled"] * 5
    # The refused ones gave their slots back: the count is the failures, 3.
    account_row = keys.login_account_key("nobody", ratelimit._window(now)[0])
    with connection() as conn:
        assert conn.table(table_name("logins")).counter_get(account_row, b"l:fails") == 3
    with pytest.raises(ratelimit.RateLimited):
        services.log_in("nobody", "one-more", "10.1.0.99")
