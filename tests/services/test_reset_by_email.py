""" "Forgot your userid?" (issue 36): a reset asked by email address sends a
link, to that address, for each enabled account registered with it, found
through the userSearch index's email rows and checked against the users
row; the answer is the same whether any exists, and the limits hold per
address and per account. Emails go to Django's test outbox (Celery runs the
job in the caller here)."""

from __future__ import annotations

import io
import re

import pytest
from django.core import mail
from django.core.management import call_command

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import passwordreset, ratelimit, search, userindex
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import PASSWORD, ServerAddr

SITE = "https://twitbase.example"
LINK = re.compile(r"https://twitbase\.example/password/reset/([A-Za-z0-9_-]+)")
SHARED = "family@example.com"


def _ask(userid_or_email: str) -> None:
    passwordreset.request_reset(userid_or_email, SITE, "203.0.113.9")


def _links() -> dict[str, str]:
    """The userid each sent link is for, by the address it went to + link."""
    out = {}
    for message in mail.outbox:
        found = LINK.search(str(message.body))
        assert found is not None
        user = passwordreset.reset_user(found.group(1))
        assert user is not None
        out[user.userid] = message.to[0]
    return out


@pytest.fixture
def family(tables: ServerAddr) -> list[User]:
    """Two accounts of one address, and bob, of another."""
    return [
        services.register("ann", "Ann", SHARED, PASSWORD),
        services.register("ben", "Ben", SHARED, PASSWORD),
        services.register("bob", "Bob", "bob@example.com", PASSWORD),
    ]


def test_an_address_gets_a_link_for_each_of_its_accounts(family: list[User]) -> None:
    _ask("  Family@Example.COM ")
    assert _links() == {"ann": SHARED, "ben": SHARED}
    assert all("@ann" in str(m.body) or "@ben" in str(m.body) for m in mail.outbox)


def test_an_address_without_accounts_answers_the_same_and_sends_nothing(
    family: list[User],
) -> None:
    _ask("nobody@example.com")
    assert mail.outbox == []


def test_what_is_neither_a_userid_nor_an_address_is_refused_naming_userid(
    family: list[User],
) -> None:
    for value in ("x@", "@example.com", "a b@example.com", "ann@@example.com"):
        with pytest.raises(InvalidInput) as err:
            _ask(value)
        assert err.value.field == "userid"
    assert mail.outbox == []


def test_a_name_that_reads_as_the_address_or_a_stale_row_gets_no_link(
    family: list[User],
) -> None:
    services.register("mallory", SHARED, "mallory@example.com", PASSWORD)
    with connection() as conn:  # an index row the users row no longer bears out
        userindex.index_user(conn, "bob", "Bob", SHARED)
    _ask(SHARED)
    assert _links() == {"ann": SHARED, "ben": SHARED}


def test_a_suspended_or_deleted_account_gets_no_link_and_leaves_no_email_row(
    family: list[User],
) -> None:
    services.set_disabled("ben")
    services.delete_account("ann", PASSWORD)
    assert userindex.userids_by_email(SHARED) == ["ben"]
    _ask(SHARED)
    assert mail.outbox == []


def test_search_never_finds_anyone_by_their_address(family: list[User]) -> None:
    assert [u.userid for u in search.search_users("family").items] == []
    assert [u.userid for u in search.search_users("bob@").items] == []
    assert [u.userid for u in search.search_users("bo").items] == ["bob"]


def test_asking_by_address_is_limited_per_address(family: list[User]) -> None:
    for _ in range(3):  # TWITBASE_PASSWORD_RESETS_PER_MINUTE
        _ask(SHARED)
    with pytest.raises(ratelimit.RateLimited):
        _ask(SHARED.upper())
    assert len(mail.outbox) == 6


def test_a_userid_and_its_address_share_the_accounts_limit(family: list[User]) -> None:
    for _ in range(3):
        _ask("ann")
    assert len(mail.outbox) == 3
    _ask(SHARED)  # answered as always, but ann is at her limit: only ben's link
    assert len(mail.outbox) == 4
    assert _links() == {"ann": SHARED, "ben": SHARED}
    assert mail.outbox[-1].body.count("@ben") == 1


def test_reindex_finds_the_accounts_made_before_email_rows(family: list[User]) -> None:
    with connection() as conn:  # as an account made before them: no email row
        for user in family:
            conn.table(table_name("userSearch")).delete(
                keys.search_key(userindex.normalise(user.email), user.userid, keys.SEARCH_EMAIL)
            )
    _ask(SHARED)
    assert mail.outbox == []
    out = io.StringIO()
    call_command("users", "reindex", stdout=out)
    assert out.getvalue() == "indexed 3 users\n"
    call_command("users", "reindex", stdout=io.StringIO())  # again: the same rows
    assert sorted(userindex.userids_by_email(SHARED)) == ["ann", "ben"]
    _ask(SHARED)
    assert _links() == {"ann": SHARED, "ben": SHARED}
    assert [u.userid for u in search.search_users("b").items] == ["ben", "bob"]
