from __future__ import annotations

import pytest

from feeds import services
from feeds.errors import InvalidInput, NotFound
from tests.helpers import ServerAddr


def _alice() -> None:
    services.register("alice", "Alice Liddell", "alice@example.com", "looking-glass")


def test_edit_name_and_bio(twitbase: ServerAddr) -> None:
    _alice()
    assert services.get_user("alice").bio == ""
    user = services.update_profile("alice", name="  Alice L.  ", bio="Curiouser\nand curiouser")
    assert (user.name, user.bio) == ("Alice L.", "Curiouser\nand curiouser")
    again = services.get_user("alice")
    assert (again.name, again.bio, again.email) == (
        "Alice L.",
        "Curiouser\nand curiouser",
        "alice@example.com",
    )
    # The password is kept when the name is rewritten in the account cell.
    assert services.authenticate("alice", "looking-glass") is not None
    # None leaves a field alone.
    assert services.update_profile("alice", bio="").name == "Alice L."
    assert services.get_user("alice").bio == ""


@pytest.mark.parametrize(
    ("name", "bio", "field"),
    [
        ("   ", None, "name"),
        ("A" * 51, None, "name"),
        ("A\x07", None, "name"),
        (None, "b" * 161, "bio"),
        (None, "tab\there", "bio"),
        (None, 5, "bio"),
        ("Fine", "bad\x00", "bio"),
    ],
)
def test_bad_profile_input_changes_nothing(
    twitbase: ServerAddr, name: object, bio: object, field: str
) -> None:
    _alice()
    services.update_profile("alice", bio="before")
    with pytest.raises(InvalidInput) as caught:
        services.update_profile("alice", name=name, bio=bio)
    assert caught.value.field == field
    user = services.get_user("alice")
    assert (user.name, user.bio) == ("Alice Liddell", "before")


def test_profile_of_no_user(twitbase: ServerAddr) -> None:
    with pytest.raises(NotFound):
        services.update_profile("nobody", bio="x")
