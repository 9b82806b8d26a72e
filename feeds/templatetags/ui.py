"""Template filters of the web UI: short relative times and avatar colours."""

from __future__ import annotations

import hashlib
from datetime import datetime

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def ago(when: datetime, now: datetime | None = None) -> str:
    """A twit's age as a stream shows it: "now", "42s", "5m", "3h", "Mar 4",
    or "Mar 4, 2024" for another year. A time in the future (a clock a little
    ahead of ours) reads as "now"."""
    now = now or timezone.now()
    seconds = int((now - when).total_seconds())
    if seconds < 5:
        return "now"
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    local = timezone.localtime(when)
    if local.year == timezone.localtime(now).year:
        return f"{local:%b} {local.day}"
    return f"{local:%b} {local.day}, {local.year}"


@register.filter
def hue(userid: str) -> int:
    """A colour (0-359) that is the same for a user on every page and every
    machine, and the same whatever the case of the userid, as userids are."""
    return int.from_bytes(hashlib.md5(userid.lower().encode()).digest()[:2], "big") % 360
