from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput
from feeds.types import User
from tests.helpers import hold_rate_clock


def test_tokens_are_issued_for_valid_credentials_and_revoked(alice: User) -> None:
    assert services.issue_token("alice", "wrong-password") is None
    issued = services.issue_token("alice", "password-123")
    assert issued is not None
    token, user = issued
    assert user.userid == "alice"
    assert services.token_user(token) == services.get_user("alice")
    assert services.token_user(token + "x") is None
    services.revoke_token(token)
    assert services.token_user(token) is None


def test_a_disabled_users_token_stops_working(alice: User) -> None:
    issued = services.issue_token("alice", "password-123")
    assert issued is not None
    services.set_disabled("alice")
    assert services.token_user(issued[0]) is None


def test_token_requests_must_be_strings(alice: User) -> None:
    with pytest.raises(InvalidInput):
        services.issue_token(None, "password-123")


def test_posting_is_rate_limited_per_user(
    alice: User, bob: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 3
    hold_rate_clock(monkeypatch)  # the window is a calendar minute: do not straddle two
    for i in range(3):
        services.post_twit("alice", f"twit {i}")
    with pytest.raises(services.RateLimited) as err:
        services.post_twit("alice", "one too many")
    assert err.value.status == 429
    assert 0 < err.value.retry_after <= 60
    assert services.get_user("alice").twits == 3
    services.post_twit("bob", "bob has his own budget")
