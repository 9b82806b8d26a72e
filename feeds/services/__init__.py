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
    public_user,
    register,
    set_disabled,
    set_staff,
    signup_problems,
    update_profile,
)
from .follows import follow, followers, following, is_following, suggest_follows, unfollow
from .health import Health, health
from .likes import like, like_count, liked, likers, unlike, user_likes, with_likes
from .notify import (
    mark_read,
    notifications,
    notify_repost,
    unnotify_repost,
    unread_count,
)
from .ratelimit import RateLimited
from .streams import home_stream
from .tokens import (
    change_password,
    issue_token,
    log_out_everywhere,
    revoke_token,
    session_user,
    start_session,
    token_user,
)
from .twits import (
    THREAD_DEPTH,
    TWIT_ID_LEN,
    ancestors,
    delete_twit,
    get_twit,
    own_twit,
    post_twit,
    public_twit,
    replies,
    timeline,
)

__all__ = [
    "MAX_CURSOR_LEN",
    "MAX_LIMIT",
    "THREAD_DEPTH",
    "TWIT_ID_LEN",
    "Health",
    "RateLimited",
    "StorageUnavailable",
    "ancestors",
    "authenticate",
    "change_password",
    "delete_twit",
    "find_user",
    "follow",
    "followers",
    "following",
    "get_twit",
    "get_user",
    "health",
    "home_stream",
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
    "notifications",
    "notify_repost",
    "own_twit",
    "post_twit",
    "public_twit",
    "public_user",
    "register",
    "replies",
    "revoke_token",
    "session_user",
    "set_disabled",
    "set_staff",
    "signup_problems",
    "start_session",
    "suggest_follows",
    "timeline",
    "token_user",
    "unfollow",
    "unlike",
    "unnotify_repost",
    "unread_count",
    "update_profile",
    "user_likes",
    "with_likes",
]
