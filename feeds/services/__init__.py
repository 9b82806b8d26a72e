"""The service layer: plain values in, frozen dataclasses out.

Services are the only code that touches storage or queues work. Views, the
API, management commands and workers call these functions.
"""

from __future__ import annotations

from storage.connection import StorageUnavailable, is_unreachable

from ._paging import MAX_CURSOR_LEN, MAX_LIMIT
from .accounts import (
    authenticate,
    find_user,
    get_user,
    list_users,
    log_in,
    profiles_among,
    public_user,
    register,
    set_disabled,
    set_staff,
    signup_problems,
    update_profile,
)
from .avatars import Avatar, get_avatar, remove_avatar, set_avatar
from .deletion import delete_account
from .follows import (
    follow,
    followers,
    followers_among,
    following,
    following_among,
    is_following,
    suggest_follows,
    unfollow,
)
from .health import Health, health
from .hydration import hydrate
from .notify import (
    mark_read,
    notifications,
    unread_count,
)
from .posting import post_twit
from .ratelimit import RateLimited, device_token
from .reactions import (
    like,
    like_count,
    liked,
    likers,
    repost,
    repost_count,
    reposted,
    reposters,
    unlike,
    unrepost,
)
from .search import search_users
from .streams import NEW_CAP, NewTwits, home_stream, new_in_stream
from .tags import check_tag, tag_twits, trending, trending_box
from .tokens import (
    change_password,
    issue_token,
    log_out_everywhere,
    revoke_token,
    session_user,
    start_session,
    token_user,
)
from .twitdeletion import delete_twit
from .twitlists import replies, thread, timeline, user_likes
from .twits import (
    THREAD_DEPTH,
    TWIT_ID_LEN,
    ancestors,
    get_twit,
    own_twit,
    public_twit,
)

__all__ = [
    "MAX_CURSOR_LEN",
    "MAX_LIMIT",
    "NEW_CAP",
    "THREAD_DEPTH",
    "TWIT_ID_LEN",
    "Avatar",
    "Health",
    "NewTwits",
    "RateLimited",
    "StorageUnavailable",
    "ancestors",
    "authenticate",
    "change_password",
    "check_tag",
    "delete_account",
    "delete_twit",
    "device_token",
    "find_user",
    "follow",
    "followers",
    "followers_among",
    "following",
    "following_among",
    "get_avatar",
    "get_twit",
    "get_user",
    "health",
    "home_stream",
    "hydrate",
    "is_following",
    "is_unreachable",
    "issue_token",
    "like",
    "like_count",
    "liked",
    "likers",
    "list_users",
    "log_in",
    "log_out_everywhere",
    "mark_read",
    "new_in_stream",
    "notifications",
    "own_twit",
    "post_twit",
    "profiles_among",
    "public_twit",
    "public_user",
    "register",
    "remove_avatar",
    "replies",
    "repost",
    "repost_count",
    "reposted",
    "reposters",
    "revoke_token",
    "search_users",
    "session_user",
    "set_avatar",
    "set_disabled",
    "set_staff",
    "signup_problems",
    "start_session",
    "suggest_follows",
    "tag_twits",
    "thread",
    "timeline",
    "token_user",
    "trending",
    "trending_box",
    "unfollow",
    "unlike",
    "unread_count",
    "unrepost",
    "update_profile",
    "user_likes",
]
