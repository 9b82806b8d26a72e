from __future__ import annotations

import pytest

from feeds import services
from feeds.errors import Conflict, InvalidInput, NotFound
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from tests.helpers import ServerAddr


def test_register_then_look_up_the_profile(twitbase: ServerAddr) -> None:
    # Not "wonderland": that is a common password, refused since issue 9.
    user = services.register("Alice_1", "Alice Liddell", "alice@example.com", "looking-glass")
    assert user.userid == "Alice_1"
    profile = services.get_user("alice_1")
    assert (profile.userid, profile.name, profile.email) == (
        "Alice_1",
        "Alice Liddell",
        "alice@example.com",
    )
    assert (profile.twits, profile.followers, profile.following) == (0, 0, 0)
    assert profile.staff is False


@pytest.mark.parametrize(
    ("userid", "name", "email", "password", "field"),
    [
        ("al", "A", "a@example.com", "password1", "userid"),
        ("a" * 21, "A", "a@example.com", "password1", "userid"),
        ("al ice", "A", "a@example.com", "password1", "userid"),
        ("alicé", "A", "a@example.com", "password1", "userid"),
        ("alice", "   ", "a@example.com", "password1", "name"),
        ("alice", "A\x07", "a@example.com", "password1", "name"),
        ("alice", "A", "not-an-email", "password1", "email"),
        ("alice", "A", "a@example.com", "short", "password"),
        ("alice", "A", "a@example.com", None, "password"),
    ],
)
def test_bad_sign_up_input_names_the_field(
    twitbase: ServerAddr, userid: str, name: str, email: str, password: str, field: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        services.register(userid, name, email, password)
    assert err.value.field == field
    assert services.find_user("alice") is None
    # The sign-up page's check starts with the problem register stops at, in
    # the same words (and goes on: "password1" is also too common).
    problems = services.signup_problems(userid, name, email, password)
    assert (problems[0].field, problems[0].message) == (field, err.value.message)


def test_signup_problems_lists_every_field_at_fault_in_form_order() -> None:
    problems = services.signup_problems("x!", "", "nope", "short")
    assert [p.field for p in problems] == ["userid", "name", "email", "password"]
    # The password is judged against what was typed, even a refused userid.
    problems = services.signup_problems("doraexplorer", "Dora", "d@example.com", "doraexplorer1")
    assert [p.messages for p in problems] == [("The password is too similar to the userid.",)]
    assert services.signup_problems("dora", "Dora", "d@example.com", "long enough 42") == ()


def test_userids_are_unique_without_regard_to_case(alice: User) -> None:
    with pytest.raises(Conflict):
        services.register("ALICE", "Other", "other@example.com", "password-1")
    assert services.get_user("alice").name == "Alice"


def test_the_password_is_stored_hashed(alice: User) -> None:
    with connection() as conn:
        row = conn.table(table_name("users")).row(keys.user_key("alice"))
    stored = b"".join(row.values())
    assert b"password-123" not in stored
    assert b"md5$" in stored


def test_authenticate(alice: User) -> None:
    assert services.authenticate("ALICE", "password-123") == services.get_user("alice")
    assert services.authenticate("alice", "wrong-password") is None
    assert services.authenticate("nobody", "password-123") is None
    assert services.authenticate("x y", "password-123") is None


def test_a_disabled_account_cannot_log_in(alice: User) -> None:
    services.set_disabled("alice")
    assert services.authenticate("alice", "password-123") is None
    services.set_disabled("alice", False)
    assert services.authenticate("alice", "password-123") is not None


def test_unknown_user_is_not_found(twitbase: ServerAddr) -> None:
    with pytest.raises(NotFound):
        services.get_user("nobody")


def test_list_users_pages_through_everyone(twitbase: ServerAddr) -> None:
    for i in range(7):
        services.register(f"user{i}", f"User {i}", f"u{i}@example.com", "password-1")
    seen: list[str] = []
    cursor = None
    while True:
        page = services.list_users(cursor, limit=3)
        seen += [u.userid for u in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == [f"user{i}" for i in range(7)]
