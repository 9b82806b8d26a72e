"""Avatars, account deletion, follow state for a list, and who to follow.
Each test runs on both servers."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput, NotFound
from feeds.services import messages
from feeds.types import User
from storage import keys
from storage.connection import connection, table_name
from storage.schema import SCHEMA
from tests.helpers import PASSWORD, register
from tests.images import colour_at, image, png_claiming, sideways_jpeg, truncated_png

# -- avatars --------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF"])
def test_an_avatar_is_stored_as_a_256px_webp_with_a_version(alice: User, fmt: str) -> None:
    assert alice.avatar == 0 and services.get_avatar("alice") is None
    user = services.set_avatar("alice", image(fmt, (300, 120)))
    assert user.avatar > 0
    assert user.avatar_url == f"/u/alice/avatar?v={user.avatar}"
    stored = services.get_avatar("alice")
    assert stored is not None and stored.version == user.avatar
    with Image.open(io.BytesIO(stored.image)) as im:
        assert (im.format, im.size) == ("WEBP", (256, 256))
    again = services.set_avatar("alice", image(fmt))
    assert again.avatar > user.avatar  # a new upload, a new URL


def test_an_avatar_is_turned_upright_by_its_exif_orientation(alice: User) -> None:
    services.set_avatar("alice", sideways_jpeg())
    stored = services.get_avatar("alice")
    assert stored is not None
    top, bottom = colour_at(stored.image, (128, 20)), colour_at(stored.image, (128, 235))
    assert top[0] > 200 and top[2] < 60, top  # red on top
    assert bottom[2] > 200 and bottom[0] < 60, bottom  # blue below


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "Choose an image file"),
        (b"not an image at all", "not a PNG, JPEG, WebP or GIF"),
        (image("BMP"), "not a PNG, JPEG, WebP or GIF"),
        (truncated_png(), "not a PNG, JPEG, WebP or GIF"),
        (png_claiming(6000, 6000), "at most 16 megapixels; this image is 6000 x 6000"),
        (png_claiming(100_000, 100_000), "at most 16 megapixels"),
        (b"\x89PNG" + b"\0" * (2 * 1024 * 1024), "at most 2 MB"),
    ],
    ids=["empty", "text", "bmp", "truncated", "bomb", "huge-bomb", "too-large"],
)
def test_a_bad_file_is_refused_and_the_old_avatar_stays(
    alice: User, data: bytes, reason: str
) -> None:
    before = services.set_avatar("alice", image("PNG", colour="green"))
    kept = services.get_avatar("alice")
    with pytest.raises(InvalidInput) as refused:
        services.set_avatar("alice", data)
    assert refused.value.field == "avatar"
    assert reason in refused.value.message
    assert services.get_user("alice").avatar == before.avatar
    assert services.get_avatar("alice") == kept


def test_removing_an_avatar_goes_back_to_none(alice: User) -> None:
    services.set_avatar("alice", image())
    assert services.remove_avatar("alice").avatar == 0
    assert services.get_avatar("alice") is None
    assert services.remove_avatar("alice").avatar == 0  # again: nothing to do


# -- account deletion -------------------------------------------------------------------


def _mentions(userid: str) -> list[str]:
    """Every row key or cell, in every table of storage/schema.py, that names
    ``userid``: its md5 in a key, its md5 (raw or hex) in a value, or a value
    that is the userid. A table added to the schema is scanned too."""
    digest = keys.user_hash(userid)
    found = []
    with connection() as conn:
        for table in SCHEMA:
            for key, cells in conn.table(table_name(table)).scan():
                if digest in key:
                    found.append(f"{table} key {key.hex()}")
                for column, value in cells.items():
                    if (
                        digest in value
                        or digest.hex().encode() in value
                        or value.lower() == userid.lower().encode()
                    ):
                        found.append(f"{table} {key.hex()} {column.decode()}={value[:60]!r}")
    return found


def test_deleting_an_account_leaves_nothing_behind_and_fixes_others_counts(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    # Chunks of one: bob's posts list his two followers in one cell (fanout).
    settings.TWITBASE_FANOUT_CHUNK = 1
    services.register("dave", "Dave", "dave@example.com", PASSWORD)
    services.follow("dave", "bob")
    services.follow("alice", "bob")
    services.follow("bob", "alice")
    services.follow("charlie", "alice")
    mine = services.post_twit("alice", "alice's twit")
    services.post_twit("alice", "another")
    theirs = services.post_twit("bob", "bob's twit")
    my_reply = services.post_twit("alice", "alice answers bob", reply_to=theirs.id)
    their_reply = services.post_twit("bob", "bob answers alice", reply_to=mine.id)
    services.post_twit("alice", "alice answers herself", reply_to=mine.id)
    services.like("alice", theirs.id)
    services.like("alice", their_reply.id)
    services.like("bob", mine.id)
    services.set_avatar("alice", image())
    token, _ = services.issue_token("alice", PASSWORD) or ("", None)
    session = services.start_session(services.get_user("alice"))
    assert services.log_in("alice", "wrong password", "10.0.0.1") is None  # a logins row
    mention = services.post_twit("charlie", "hello @alice")
    services.repost("alice", theirs.id)  # reaches charlie's stream, who follows alice
    services.repost("bob", mine.id)
    tagged = services.post_twit("alice", "gone with her #farewell")
    messages.send("bob", "alice", "hello alice")  # conversations, both ways
    messages.send("alice", "charlie", "hello charlie")
    assert services.search_users("alic").items and services.tag_twits("farewell").items
    assert services.get_twit(theirs.id).reposts == 1
    assert services.get_twit(theirs.id).replies == 1
    assert services.get_twit(theirs.id).likes == 1
    assert my_reply.reply_to == theirs.id
    assert _mentions("alice")  # the check sees her before
    with connection() as conn:  # bob's list of followers names her
        listed = conn.table(table_name("followerLists")).row(keys.user_key("bob"))
    assert keys.user_hash("alice") in b"".join(listed.values())

    with pytest.raises(InvalidInput) as wrong:
        services.delete_account("alice", "not my password")
    assert wrong.value.field == "password"
    assert services.get_user("alice").twits == 5  # a wrong password changes nothing

    services.delete_account("alice", PASSWORD)

    assert _mentions("alice") == []
    assert services.find_user("alice") is None
    assert services.token_user(token) is None and services.session_user(session) is None
    bob_now, charlie_now = services.get_user("bob"), services.get_user("charlie")
    assert (bob_now.followers, bob_now.following) == (1, 0)
    assert (charlie_now.followers, charlie_now.following) == (0, 0)
    bobs = services.get_twit(theirs.id)
    assert (bobs.replies, bobs.likes, bobs.reposts) == (0, 0, 0)
    assert services.search_users("alic").items == ()
    assert services.tag_twits("farewell").items == ()
    assert tagged.id not in {t.id for t in services.home_stream("bob", limit=100).items}
    assert services.replies(theirs.id).items == ()
    # bob's reply to alice stays, as a twit of its own, liked by nobody now.
    answer = services.get_twit(their_reply.id)
    assert (answer.reply_to, answer.reply_userid, answer.likes) == (None, "", 0)
    for reader in ("bob", "charlie"):
        stream = services.home_stream(reader, limit=100).items
        assert all(t.userid != "alice" for t in stream)
        assert all(t.reply_userid != "alice" for t in stream)
        assert all(t.reposted_by != "alice" for t in stream)
    # bob's reply is still in his stream, no longer a reply; charlie, who
    # does not follow bob, is not given it by its rewrite.
    in_bobs = [t for t in services.home_stream("bob", limit=100).items if t.id == their_reply.id]
    assert [(t.text, t.reply_to) for t in in_bobs] == [("bob answers alice", None)]
    assert their_reply.id not in {t.id for t in services.home_stream("charlie", limit=100).items}
    assert messages.inbox("bob").items == () and messages.unread_total("charlie") == 0
    # What others wrote about her is theirs: the mention stays.
    assert services.get_twit(mention.id).text == "hello @alice"


def test_a_deleted_userid_can_be_registered_again_from_nothing(alice: User, bob: User) -> None:
    services.follow("bob", "alice")
    services.post_twit("alice", "old twit")
    services.set_avatar("alice", image())
    services.delete_account("alice", PASSWORD)
    again = services.register("Alice", "New Alice", "new@example.com", "another-pass-456")
    assert (again.twits, again.followers, again.following, again.avatar) == (0, 0, 0, 0)
    assert services.timeline("Alice").items == ()
    assert services.followers("Alice").items == ()
    assert services.get_avatar("Alice") is None
    assert [t.text for t in services.home_stream("bob").items] == []
    # A stale retry of the old deletion leaves the new account alone.
    from feeds.services import deletion

    old = round(alice.created.timestamp() * 1000)
    assert deletion.erase_account("alice", old) is False
    assert services.find_user("Alice") is not None


def test_deleting_an_unknown_account_is_not_found(tables: object) -> None:
    with pytest.raises(NotFound):
        services.delete_account("nobody", PASSWORD)


# -- follow buttons, who to follow ---------------------------------------------------------


def test_following_among_answers_a_page_in_one_call(alice: User, bob: User, charlie: User) -> None:
    services.follow("alice", "bob")
    assert services.following_among("alice", ["Bob", "charlie", "alice", "not valid!"]) == {"bob"}
    assert services.following_among("alice", []) == set()


def test_profiles_among_are_the_accounts_a_page_can_link_to(
    alice: User, bob: User, charlie: User
) -> None:
    services.set_disabled("charlie")
    assert services.profiles_among(["Alice", "BOB", "charlie", "nobody"]) == {"alice", "bob"}
    assert services.profiles_among([]) == frozenset()


def test_followers_among_says_who_follows_you_in_one_call(
    alice: User, bob: User, charlie: User
) -> None:
    services.follow("bob", "alice")
    services.follow("alice", "charlie")  # the other way: not a follower
    assert services.followers_among("alice", ["Bob", "charlie", "alice", "not valid!"]) == {"bob"}
    services.unfollow("bob", "alice")
    assert services.followers_among("alice", ["bob"]) == set()
    assert services.followers_among("alice", []) == set()


def test_who_to_follow_ranks_friends_of_friends_by_how_many_follow_them(
    alice: User, bob: User, charlie: User
) -> None:
    for u in ("dave", "erin", "frank", "gina"):
        register(u)
    services.follow("alice", "bob")
    services.follow("alice", "charlie")
    services.follow("bob", "dave")
    services.follow("charlie", "dave")
    services.follow("bob", "erin")
    services.follow("bob", "alice")
    services.follow("gina", "frank")
    services.follow("erin", "frank")
    ranked = [u.userid for u in services.suggest_follows("alice", 2)]
    assert ranked == ["dave", "erin"]  # dave: followed by 2 of hers, erin: by 1
    # Never herself or whom she follows; topped up with the most followed.
    assert [u.userid for u in services.suggest_follows("alice", 3)] == ["dave", "erin", "frank"]
    # It stays useful after a follow: the next best moves up.
    services.follow("alice", "dave")
    assert [u.userid for u in services.suggest_follows("alice", 2)] == ["erin", "frank"]
    # A suspended account is never suggested.
    services.set_disabled("erin")
    assert "erin" not in [u.userid for u in services.suggest_follows("alice", 5)]


def test_held_suggestions_never_offer_whom_the_reader_follows_or_a_suspended_account(
    alice: User, bob: User, charlie: User, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from feeds.services import follows

    settings.TWITBASE_SUGGEST_CACHE_S = 300
    for u in ("dave", "erin", "frank"):
        register(u)
    services.follow("alice", "bob")
    services.follow("bob", "dave")
    services.follow("bob", "erin")
    services.follow("erin", "frank")
    assert [u.userid for u in services.suggest_follows("alice", 3)] == ["dave", "erin", "frank"]
    # Changes made where this process's held ranking is not forgotten (an
    # API worker, the console): each page still checks what it offers.
    monkeypatch.setattr(follows, "_forget", lambda userid: None)
    services.follow("alice", "dave")
    assert [u.userid for u in services.suggest_follows("alice", 2)] == ["erin", "frank"]
    services.set_disabled("erin")
    assert [u.userid for u in services.suggest_follows("alice", 2)] == ["frank", "charlie"]


def test_a_held_ranking_is_ranked_again_after_its_time_or_the_readers_own_follow(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    settings.TWITBASE_SUGGEST_CACHE_S = 300
    for u in ("dave", "erin", "frank", "gina"):
        register(u)
    services.follow("alice", "bob")
    services.follow("alice", "erin")
    services.follow("bob", "charlie")
    clock = iter([0.0, 10.0, 301.0, 302.0, 303.0])

    def suggested() -> str:
        (first,) = services.suggest_follows("alice", 1, lambda: next(clock))
        return first.userid

    assert suggested() == "charlie"
    services.follow("bob", "dave")
    services.follow("erin", "dave")  # two of alice's follows follow dave
    assert suggested() == "charlie"  # the ranking held at 0 s
    assert suggested() == "dave"  # ranked again after 300 s
    for u in ("bob", "erin", "frank"):
        services.follow(u, "gina")  # as many of hers follow gina, and she has more followers
    assert suggested() == "dave"  # held at 301 s
    services.follow("alice", "frank")  # her own follow: ranked again at once
    assert suggested() == "gina"


def test_a_new_user_is_offered_the_most_followed_accounts(
    alice: User, bob: User, charlie: User
) -> None:
    register("dave")
    services.follow("alice", "bob")
    services.follow("charlie", "bob")
    services.follow("bob", "charlie")
    ranked = [u.userid for u in services.suggest_follows("dave", 2)]
    assert ranked == ["bob", "charlie"]
    assert "dave" not in [u.userid for u in services.suggest_follows("dave", 10)]


def test_a_deletion_that_crashed_halfway_finishes_on_retry_counting_once(
    alice: User, bob: User, charlie: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from feeds.services import deletion, tokens

    services.follow("alice", "bob")
    services.follow("charlie", "alice")
    liked = services.post_twit("bob", "like me")
    services.like("alice", liked.id)
    services.post_twit("alice", "mine")
    created = round(alice.created.timestamp() * 1000)

    def crash(userid: str) -> int:
        raise RuntimeError("worker lost")

    services.set_disabled("alice")
    monkeypatch.setattr(tokens, "forget_user", crash)
    with pytest.raises(RuntimeError):
        deletion.erase_account("alice", created)
    assert services.find_user("alice") is not None  # the users row goes last
    monkeypatch.undo()
    assert deletion.erase_account("alice", created) is True
    assert deletion.erase_account("alice", created) is False  # and again: nothing to do
    assert _mentions("alice") == []
    assert services.get_user("bob").followers == 0
    assert services.get_user("charlie").following == 0
    assert services.get_twit(liked.id).likes == 0
