"""Password reset by email (issue 36), on both servers: the link's token is
stored hashed, works once and for an hour, dies with a password change, and
setting the password ends every session and token. Emails go to Django's
test outbox here; tests/web/test_recovery_pages.py sends them over SMTP."""

from __future__ import annotations

import re
import threading
import time

import pytest
from django.core import mail

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import passwordreset, tokens
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD

NEW_PASSWORD = "a-brand-new-secret-9"
SITE = "https://twitbase.example"
LINK = re.compile(r"https://twitbase\.example/password/reset/([A-Za-z0-9_-]+)")


def ask(userid: str = "alice") -> str:
    """Ask for a reset of ``userid``'s password; the token its email carries."""
    before = len(mail.outbox)
    passwordreset.request_reset(userid, SITE, "203.0.113.9")
    assert len(mail.outbox) == before + 1
    found = LINK.search(str(mail.outbox[-1].body))
    assert found is not None
    return found.group(1)


def test_a_reset_emails_a_link_to_the_accounts_address(alice: User) -> None:
    token = ask()
    sent = mail.outbox[-1]
    assert sent.to == ["alice@example.com"]
    assert sent.subject == passwordreset.SUBJECT
    assert f"{SITE}/password/reset/{token}" in str(sent.body)
    assert passwordreset.reset_user(token) == services.get_user("alice")


def test_an_unknown_userid_answers_the_same_and_sends_nothing(alice: User) -> None:
    for userid in ("nobody", "Alice_2", "bob"):
        assert passwordreset.request_reset(userid, SITE, "203.0.113.9") is None
    assert mail.outbox == []


def test_what_cannot_be_a_userid_is_refused_naming_userid(alice: User) -> None:
    for userid in ("x!", "", "a" * 300, ["alice"]):
        with pytest.raises(InvalidInput) as err:
            passwordreset.request_reset(userid, SITE, "203.0.113.9")
        assert err.value.field == "userid"
    assert mail.outbox == []


def test_the_token_is_stored_only_as_its_hash(alice: User) -> None:
    token = ask()
    with connection() as conn:
        table = conn.table(table_name("tokens"))
        stored = dict(table.scan())
    assert keys.token_key(token) in stored
    for key, cells in stored.items():
        assert token.encode() not in key
        assert all(token.encode() not in value for value in cells.values())


def test_confirming_sets_the_password_and_ends_every_session_and_token(alice: User) -> None:
    api_token = services.issue_token("alice", PASSWORD)
    assert api_token is not None
    session = services.start_session(services.get_user("alice"))
    user = passwordreset.confirm_reset(ask(), NEW_PASSWORD)
    assert user.auth_generation == 1
    assert services.authenticate("alice", NEW_PASSWORD) is not None
    assert services.authenticate("alice", PASSWORD) is None
    assert services.token_user(api_token[0]) is None
    assert services.session_user(session) is None


def test_a_link_works_once_and_a_replay_changes_nothing(alice: User) -> None:
    token = ask()
    passwordreset.confirm_reset(token, NEW_PASSWORD)
    generation = services.get_user("alice").auth_generation
    with pytest.raises(InvalidInput) as err:
        passwordreset.confirm_reset(token, "another-new-secret-7")
    assert err.value.field == "token"
    assert services.authenticate("alice", NEW_PASSWORD) is not None
    assert services.get_user("alice").auth_generation == generation
    assert passwordreset.reset_user(token) is None


def test_of_two_confirmations_at_once_exactly_one_sets_its_password(alice: User) -> None:
    token = ask()
    outcomes: list[str] = []
    start = threading.Barrier(4)

    def confirm(password: str) -> None:
        start.wait()
        try:
            passwordreset.confirm_reset(token, password)
            outcomes.append(password)
        except InvalidInput:
            outcomes.append("refused")

    passwords = [f"racing-password-{n}x" for n in range(4)]
    threads = [threading.Thread(target=confirm, args=(p,)) for p in passwords]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    won = [o for o in outcomes if o != "refused"]
    assert len(won) == 1 and outcomes.count("refused") == 3
    assert services.authenticate("alice", won[0]) is not None
    assert services.get_user("alice").auth_generation == 1


def test_a_refused_password_leaves_the_link_working(alice: User) -> None:
    token = ask()
    with pytest.raises(InvalidInput) as err:
        passwordreset.confirm_reset(token, "short")
    assert err.value.field == "new_password"
    with pytest.raises(InvalidInput) as err:
        passwordreset.confirm_reset(token, "alice@example.com")
    assert err.value.field == "new_password"
    passwordreset.confirm_reset(token, NEW_PASSWORD)
    assert services.authenticate("alice", NEW_PASSWORD) is not None


def test_a_password_change_or_logging_out_everywhere_kills_earlier_links(alice: User) -> None:
    before_change = ask()
    services.change_password("alice", PASSWORD, NEW_PASSWORD, "")
    before_logout = ask()
    services.log_out_everywhere("alice")
    for token in (before_change, before_logout):
        assert passwordreset.reset_user(token) is None
        with pytest.raises(InvalidInput):
            passwordreset.confirm_reset(token, "yet-another-secret-5")
    assert services.authenticate("alice", NEW_PASSWORD) is not None


def test_a_link_expires_after_its_hour(alice: User, monkeypatch: pytest.MonkeyPatch) -> None:
    token = ask()
    monkeypatch.setattr(tokens, "RESET_TTL_S", 0)
    time.sleep(0.01)
    assert passwordreset.reset_user(token) is None
    with pytest.raises(InvalidInput):
        passwordreset.confirm_reset(token, NEW_PASSWORD)
    assert services.authenticate("alice", PASSWORD) is not None


def test_a_reset_token_is_no_session_or_api_token_and_theirs_no_reset(alice: User) -> None:
    token = ask()
    assert services.token_user(token) is None
    assert services.session_user(token) is None
    session = services.start_session(services.get_user("alice"))
    assert passwordreset.reset_user(session) is None
    with pytest.raises(InvalidInput):
        passwordreset.confirm_reset(session, NEW_PASSWORD)


def test_a_suspended_account_gets_no_link(alice: User) -> None:
    token = ask()
    services.set_disabled("alice")
    passwordreset.request_reset("alice", SITE, "203.0.113.9")
    assert len(mail.outbox) == 1
    with pytest.raises(InvalidInput):
        passwordreset.confirm_reset(token, NEW_PASSWORD)
