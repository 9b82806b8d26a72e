"""Every costly action is limited per account or per client address, shared
by all web processes through HBase counters: sign-ups, follows and
unfollows, likes and reposts, avatar uploads, and the declarations the
reports and password resets use. Each refusal is RateLimited (429) with a
Retry-After and a message saying the limit."""

from __future__ import annotations

import time

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import lists, media, ratelimit
from feeds.types import User
from storage.schema import SCHEMA
from tests.helpers import PASSWORD, ServerAddr, hold_rate_clock
from tests.images import image, png_claiming


@pytest.fixture(autouse=True)
def one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's actions fall in one window of the per-minute limits: their
    clock is held, rather than waiting out a minute's last seconds."""
    hold_rate_clock(monkeypatch)


def sign_up(userid: str, address: str) -> User:
    return services.register(
        userid, userid.title(), f"{userid}@example.com", PASSWORD, address=address
    )


def test_sign_ups_from_one_address_are_limited_and_other_addresses_are_not(
    twitbase: ServerAddr, settings: Settings
) -> None:
    settings.TWITBASE_SIGNUPS_PER_MINUTE = 3
    for i in range(3):
        sign_up(f"user{i}", "203.0.113.7")
    with pytest.raises(services.RateLimited) as refused:
        sign_up("onetoomany", "203.0.113.7")
    assert refused.value.status == 429
    assert 0 < refused.value.retry_after <= 60
    assert "You can sign up 3 accounts a minute from your address" in refused.value.message
    assert services.find_user("onetoomany") is None
    assert sign_up("elsewhere", "198.51.100.1").userid == "elsewhere"


def test_an_invalid_sign_up_is_not_counted(twitbase: ServerAddr, settings: Settings) -> None:
    settings.TWITBASE_SIGNUPS_PER_MINUTE = 1
    with pytest.raises(InvalidInput):
        sign_up("no spaces allowed", "203.0.113.8")
    assert sign_up("valid", "203.0.113.8").userid == "valid"


def test_follow_flapping_is_cut_off(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    settings.TWITBASE_FOLLOWS_PER_MINUTE = 4
    for _ in range(2):
        assert services.follow("alice", "bob")
        assert services.unfollow("alice", "bob")
    with pytest.raises(services.RateLimited) as refused:
        services.follow("alice", "bob")
    assert "You can follow or unfollow 4 times a minute" in refused.value.message
    with pytest.raises(services.RateLimited):
        services.unfollow("alice", "bob")
    assert not services.is_following("alice", "bob")
    assert services.get_user("bob").followers == 0
    # The limit is the follower's: charlie has a budget of his own.
    assert services.follow("charlie", "bob")


def test_an_account_deletion_unfollows_without_a_limit(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    settings.TWITBASE_FOLLOWS_PER_MINUTE = 2
    services.follow("alice", "bob")
    services.follow("alice", "charlie")
    services.follow("bob", "alice")
    services.delete_account("alice", PASSWORD)
    assert services.get_user("bob").followers == 0
    assert services.get_user("charlie").followers == 0


def test_likes_and_reposts_share_one_limit(alice: User, bob: User, settings: Settings) -> None:
    settings.TWITBASE_REACTIONS_PER_MINUTE = 3
    twit = services.post_twit("bob", "like me")
    services.like("alice", twit.id)
    services.unlike("alice", twit.id)
    services.repost("alice", twit.id)
    with pytest.raises(services.RateLimited) as refused:
        services.like("alice", twit.id)
    assert 0 < refused.value.retry_after <= 60
    assert "times a minute" in refused.value.message
    seen = services.get_twit(twit.id)
    assert (seen.likes, seen.reposts) == (0, 1)


def test_avatar_uploads_are_limited(alice: User, settings: Settings) -> None:
    settings.TWITBASE_AVATAR_UPLOADS_PER_MINUTE = 2
    first = services.set_avatar("alice", image("PNG", colour="green"))
    services.set_avatar("alice", image("PNG", colour="blue"))
    with pytest.raises(services.RateLimited) as refused:
        services.set_avatar("alice", image("PNG", colour="red"))
    assert "You can upload 2 avatars a minute" in refused.value.message
    assert services.get_user("alice").avatar > first.avatar


def test_image_uploads_are_limited_before_the_file_is_decoded(
    alice: User, bob: User, settings: Settings
) -> None:
    settings.TWITBASE_IMAGE_UPLOADS_PER_MINUTE = 2
    first = media.upload("alice", image("PNG", colour="green"), "green")
    media.upload("alice", image("PNG", colour="blue"))
    started = time.process_time()
    with pytest.raises(services.RateLimited) as refused:
        media.upload("alice", png_claiming(5000, 5000))
    assert time.process_time() - started < 0.3  # refused before the bomb is looked at
    assert "You can upload 2 images a minute" in refused.value.message
    assert 0 < refused.value.retry_after <= 60
    # What was stored is still there to attach, and bob has a budget of his own.
    twit = services.post_twit("alice", "two of three", images=[first.id])
    assert [i.id for i in twit.images] == [first.id]
    assert media.upload("bob", image("PNG")).id


def test_making_deleting_and_filling_lists_share_one_limit(
    alice: User, bob: User, charlie: User, settings: Settings
) -> None:
    settings.TWITBASE_LIST_CHANGES_PER_MINUTE = 4
    made = lists.create_list("alice", "friends")
    assert lists.add_member("alice", made.id, "bob")
    assert lists.remove_member("alice", made.id, "bob")
    spare = lists.create_list("alice", "spare")
    for refused_change in (
        lambda: lists.add_member("alice", made.id, "charlie"),
        lambda: lists.remove_member("alice", made.id, "bob"),
        lambda: lists.create_list("alice", "one too many"),
        lambda: lists.delete_list("alice", spare.id),
    ):
        with pytest.raises(services.RateLimited) as refused:
            refused_change()
        assert (
            "You can make or delete a list, or add or remove its members, 4 times a minute"
            in refused.value.message
        )
    assert not lists.is_member(made.id, "charlie")
    assert [found.name for found in lists.lists_of("alice").items] == ["spare", "friends"]
    # The limit is the owner's: bob makes his own list.
    assert lists.create_list("bob", "mine").name == "mine"


def test_a_decompression_bomb_avatar_is_refused_without_decoding(alice: User) -> None:
    # 5000 x 5000 declared in a tiny PNG: decoding it took 1.4-1.7 CPU s.
    bomb = png_claiming(5000, 5000)
    assert len(bomb) < 1000
    started = time.process_time()
    with pytest.raises(InvalidInput) as refused:
        services.set_avatar("alice", bomb)
    assert time.process_time() - started < 0.3
    assert refused.value.field == "avatar"
    assert "at most 16 megapixels; this image is 5000 x 5000" in refused.value.message
    assert services.get_user("alice").avatar == 0


def test_the_reports_and_password_reset_limits_count_per_key(
    twitbase: ServerAddr, settings: Settings
) -> None:
    settings.TWITBASE_REPORTS_PER_MINUTE = 1
    settings.TWITBASE_PASSWORD_RESETS_PER_MINUTE = 1
    settings.TWITBASE_PASSWORD_RESETS_PER_ADDRESS = 1
    for limit, key, other in [
        (ratelimit.REPORTS, "alice", "bob"),
        (ratelimit.PASSWORD_RESETS, "alice", "bob"),
        (ratelimit.PASSWORD_RESETS_PER_ADDRESS, "203.0.113.9", "198.51.100.9"),
    ]:
        ratelimit.check(limit, key)
        with pytest.raises(services.RateLimited):
            ratelimit.check(limit, key)
        ratelimit.check(limit, other)


def test_every_limit_is_a_setting_and_fits_in_the_counters_ttl() -> None:
    ttl = SCHEMA["ratelimits"]["r"]["time_to_live"]
    names = [limit.name for limit in ratelimit.LIMITS]
    assert len(set(names)) == len(names)
    for limit in ratelimit.LIMITS:
        assert limit.count >= 1, limit.setting
        assert limit.window_s <= ratelimit.MAX_WINDOW_S < ttl
        assert "{count}" in limit.message
