"""Every table says how an account deletion clears a user's rows from it: a
table added to storage/schema.py without a line in USER_DATA fails here, so
whoever adds it decides (and services/deletion.py does it); the scan in
tests/services/test_account.py then checks the table holds nothing of a
deleted user."""

from __future__ import annotations

from storage import keys
from storage.schema import SCHEMA, USER_DATA


def test_every_table_says_how_a_deletion_clears_it() -> None:
    assert set(USER_DATA) == set(SCHEMA)
    assert all(USER_DATA.values())


def test_the_avatars_table_is_in_the_key_registry() -> None:
    assert keys.layout_text("avatars") == "md5(user)"
    assert keys.keyed_by_user("avatars")
    assert keys.avatar_key("Alice") == keys.user_key("alice")
    assert keys.sequential_head("avatars", keys.avatar_key("alice"), "Alice") == b"alice"
