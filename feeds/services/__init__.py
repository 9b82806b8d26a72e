"""The service layer: plain values in, frozen dataclasses out.

Services are the only code that touches storage or queues work. Views, the
API, management commands and workers call these functions.
"""

from __future__ import annotations

from .accounts import (
    authenticate,
    find_user,
    get_user,
    list_users,
    register,
    set_disabled,
    set_staff,
)
from .follows import follow, followers, following, is_following, unfollow
from .health import Health, health
from .streams import home_stream
from .twits import delete_twit, get_twit, post_twit, timeline

__all__ = [
    "Health",
    "authenticate",
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
    "list_users",
    "post_twit",
    "register",
    "set_disabled",
    "set_staff",
    "timeline",
    "unfollow",
]
