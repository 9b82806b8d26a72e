"""The TwitBase tables and their column families, created by one idempotent call.

Every family keeps one version: a single version keeps rows small and
reads cheap. One exception reads history on purpose: twits' "h", a twit's
texts as it was edited (the section at the end). Names get the environment's prefix
(settings.TWITBASE_TABLE_PREFIX), so test runs and deployments never meet.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import nullcontext
from typing import Any

import happybase
from django.conf import settings

from .admin import create_presplit, split_keys, thrift2_client
from .connection import table_name

ONE = {"max_versions": 1}

# table -> family -> MOB threshold (bytes), for the families that are HBase 2
# MOB families (storage/admin.py's mob_attributes); see "media" below.
MOB_FAMILIES: dict[str, dict[str, int]] = {}

SCHEMA: dict[str, dict[str, dict[str, int]]] = {
    # Row keys are in storage/keys.py, cells in storage/rows.py (rows.COLUMNS
    # lists each table's); what each table is for, in docs/schema.md.
    "users": {"info": ONE, "c": ONE},  # "info": the account and flags; "c": counts
    "twits": {"t": ONE},
    # One row per unfinished fan-out, what the sweep and the console read
    # instead of scanning twits (see feeds/services/pending.py). Small: rows
    # leave when their fan-out ends.
    "pendingFanouts": {"p": ONE},
    "follows": {"f": ONE},
    "followedBy": {"f": ONE},
    # A fanned-out author's followers, packed in one cell for the fan-out to
    # read at once (see fanout.start_chunk); HBase drops a list ten minutes old.
    "followerLists": {"l": {"max_versions": 1, "time_to_live": 600}},
    "streams": {"s": ONE},
    # A twit's replies, oldest first under its key, each carrying what the
    # permalink shows of it (see keys.reply_key).
    "replies": {"r": ONE},
    # Likes: a twit's likers (twit key + md5(liker), one multi-get answers
    # "did I like these?") and a user's likes, newest first.
    "likers": {"l": ONE},
    "likes": {"l": ONE},
    # Reposts: a twit's reposters (twit key + md5(reposter); "did I repost
    # these?" in one multi-get) and a user's reposts, newest first, carrying
    # the twit as a stream row does (the read-time merge of large accounts).
    "reposters": {"r": ONE},
    "reposts": {"s": ONE},
    # Notifications, newest first under md5(recipient), and the like/repost
    # groups that move their one row to the top (feeds/services/notifications.py).
    "notifications": {"n": ONE},
    "notifyGroups": {"g": ONE},
    # API bearer tokens and web sessions, 30 days.
    "tokens": {"k": {"max_versions": 1, "time_to_live": 30 * 24 * 3600}},
    # Counters per time window: HBase expires old windows.
    "ratelimits": {"r": {"max_versions": 1, "time_to_live": 180}},
    "logins": {"l": {"max_versions": 1, "time_to_live": 2 * 24 * 3600}},
    "celebrities": {"c": ONE},  # authors too large to fan out (see fanout)
    # One row, "all": a counter every suspension and reinstatement raises,
    # what the processes' kept answers of who is suspended compare
    # (accounts.SuspendedCache).
    "suspensions": {"s": ONE},
    # Fan-out figures and worker heartbeats; a week of history is plenty.
    "metrics": {"m": {"max_versions": 1, "time_to_live": 7 * 24 * 3600}},
    # The staff console's log: who did what, when; kept forever.
    "audit": {"a": ONE},
    # A hashtag's twits, newest first under md5(tag), each carrying what a
    # page shows of it (see keys.tag_key).
    "hashtags": {"h": ONE},
    # Uses of each tag per 5-minute bucket (HBase counters), summed over the
    # last hour for the trending box; HBase drops buckets after two hours.
    "tagCounts": {"n": {"max_versions": 1, "time_to_live": 2 * 3600}},
    # Users by normalised userid and display name, for prefix search.
    "userSearch": {"x": ONE},
}


def create_tables(conn: happybase.Connection, names: Iterable[str] | None = None) -> list[str]:
    """Create the tables that do not exist yet; return the full names created.

    Safe to repeat: an existing table is left as it is. Tables keyed by a
    hash are created pre-split into ``TWITBASE_PRESPLIT_REGIONS`` regions
    through Thrift2 (storage/admin.py) when ``TWITBASE_HBASE_THRIFT2_PORT``
    names a Thrift2 server; without one, every table is one region.
    """
    existing = {t.decode() for t in conn.tables()}
    regions = settings.TWITBASE_PRESPLIT_REGIONS if settings.TWITBASE_HBASE_THRIFT2_PORT else 1
    todo = [(name, table_name(name)) for name in names or SCHEMA]
    todo = [(name, full) for name, full in todo if full not in existing]
    splits = {name: split_keys(name, regions) for name, _ in todo}
    # A MOB family can only be made through Thrift2: without a Thrift2
    # server it is a plain family (the same cells, in ordinary store files).
    thrift2 = {
        name for name, _ in todo if splits[name] or (name in MOB_FAMILIES and _has_thrift2())
    }
    client: Any
    with thrift2_client() if thrift2 else nullcontext() as client:
        for name, full in todo:
            if name in thrift2:
                create_presplit(
                    client, full, SCHEMA[name], splits[name], MOB_FAMILIES.get(name, {})
                )
            else:
                conn.create_table(full, SCHEMA[name])
    return [full for _, full in todo]


def _has_thrift2() -> bool:
    return bool(settings.TWITBASE_HBASE_THRIFT2_PORT)


def drop_tables(conn: happybase.Connection) -> list[str]:
    """Delete every TwitBase table of this prefix (tests and `createtables --reset`)."""
    existing = {t.decode() for t in conn.tables()}
    dropped = []
    for name in SCHEMA:
        full = table_name(name)
        if full in existing:
            conn.delete_table(full, disable=True)
            dropped.append(full)
    return dropped


# -- avatars and account deletion (account branch) -------------------------------------

# A user's avatar, re-encoded (WebP, 256 px), one row keyed md5(userid); the
# users row's info:avatar holds its version, for cache-busting URLs.
SCHEMA["avatars"] = {"a": ONE}

# POST /api/twits's Idempotency-Keys: md5(userid) + md5(key), claimed by a
# checkAndPut, naming the twit they posted; HBase forgets them after a day.
SCHEMA["idempotency"] = {"i": {"max_versions": 1, "time_to_live": 24 * 3600}}

# How an account deletion (feeds/services/deletion.py) finds a user's rows in
# each table. Every table is listed: tests/unit/test_deletion_registry.py
# fails for a table added without saying how its per-user rows are cleared.
USER_DATA: dict[str, str] = {
    "users": "the row md5(userid), last; the follow counts of others, per edge",
    "twits": "prefix md5(userid): each twit deleted as delete_twit does; others' replies "
    "to them lose reply_to/reply_userid",
    "pendingFanouts": "prefix md5(userid), twit fan-outs; a removal's stream-job entry "
    "ends with its job",
    "follows": "prefix md5(userid) (unfollowed one by one, counts corrected), and the "
    "rows of followers (from followedBy)",
    "followedBy": "prefix md5(userid), and the rows of followees (from follows)",
    "streams": "prefix md5(userid); the user's twits in followers' streams go with the "
    "twits; replies' reply_to cells in readers' streams are cleared",
    "replies": "under the user's twits (with them) and the user's replies (with them)",
    "likers": "per like found in likes, unliked first (counts corrected)",
    "likes": "prefix md5(userid); others' likes of the user's twits go with the twits",
    "tokens": "a scan filtered on k:userid (no index: tokens are keyed by sha256)",
    "ratelimits": "prefix md5(userid)",
    "logins": "prefix md5(userid) (per-address, per-device and per-session rows name no user)",
    "celebrities": "the row md5(userid)",
    "suspensions": "holds no per-user data (one counter)",
    "followerLists": "the row md5(userid); others' lists naming the user go with the unfollows",
    "metrics": "holds no per-user data",
    "audit": "kept: the staff's record of what they did is not the user's data",
    "avatars": "the row md5(userid)",
    "idempotency": "prefix md5(userid)",
    "reposters": "per repost found in reposts, un-reposted first (counts corrected); "
    "others' reposts of the user's twits go with the twits",
    "reposts": "prefix md5(userid)",
    "hashtags": "the user's twits' rows go with the twits (delete_twit)",
    "tagCounts": "holds no per-user data (uses per tag per five minutes)",
    "userSearch": "the userid, name and email rows (userindex.forget_user)",
    "notifications": "prefix md5(userid); those the user caused: their follows' by one "
    "filtered scan (notify.forget_follower), the rest with the unlikes, un-reposts and "
    "twit deletes",
    "notifyGroups": "the groups of the user's twits go with the twits; the user leaves "
    "others' groups with each unlike and un-repost",
}

# -- reports (feeds/services/reports.py) ----------------------------------------------

# Reports of twits and accounts: one row per (subject, reporter); a subject's
# row (its state for the staff's queue, its count of open reports); and the
# queue itself, the open subjects newest first and most reported first.
SCHEMA["reportsBySubject"] = {"r": ONE}
SCHEMA["reportSubjects"] = {"s": ONE, "c": ONE}
SCHEMA["reportQueue"] = {"q": ONE}
USER_DATA["reportsBySubject"] = (
    "prefixes b't' + md5(userid) and b'u' + md5(userid) (reports of the user's twits "
    "and account), and a scan filtered on r:userid (the user's own reports)"
)
USER_DATA["reportSubjects"] = "prefixes b't' + md5(userid) and b'u' + md5(userid)"
USER_DATA["reportQueue"] = "the queue rows the user's subjects' states name"

# -- blocks and mutes (feeds/services/blocks.py) ----------------------------------------

# A block: md5(blocker) + md5(blocked), and the same pair the other way in
# blockedBy, as follows and followedBy are. A mute of an account: md5(muter)
# + md5(muted); of a word or hashtag: md5(muter) + md5(word), the word in
# its cell. Each list is one prefix scan; "does either of us block the
# other?" for a page's people is one multi-get.
SCHEMA["blocks"] = {"b": ONE}
SCHEMA["blockedBy"] = {"b": ONE}
SCHEMA["mutes"] = {"m": ONE}
SCHEMA["mutedWords"] = {"w": ONE}
USER_DATA["blocks"] = "prefix md5(userid), and the rows of those who block the user (blockedBy)"
USER_DATA["blockedBy"] = "prefix md5(userid), and the rows of those the user blocks (blocks)"
USER_DATA["mutes"] = "prefix md5(userid); others' mutes of the user stay until they unmute"
USER_DATA["mutedWords"] = "prefix md5(userid)"


# -- the words index (feeds/services/tagindex.py) ----------------------------------------

# Each twit's words (normalised, see textparse.words): md5(word) + the twit's
# time, author and suffix, so a word's twits are one prefix scan, newest
# first, and "has this twit that word?" is a get. Written with the twit.
SCHEMA["twitWords"] = {"w": ONE}
USER_DATA["twitWords"] = "the user's twits' rows go with the twits (delete_twit)"


# -- bookmarks (feeds/services/reactions.py) --------------------------------------------

# A reaction nobody else sees: the pairs (twit + md5(user)) and each user's
# own rows, newest first, as likes have them, without a count or a
# notification.
SCHEMA["bookmarkers"] = {"b": ONE}
SCHEMA["bookmarks"] = {"b": ONE}
USER_DATA["bookmarkers"] = "per bookmark found in bookmarks, taken back first; others' "
USER_DATA["bookmarkers"] += "bookmarks of the user's twits go with the twits"
USER_DATA["bookmarks"] = "prefix md5(userid)"


# -- images in twits (feeds/services/media.py) ---------------------------------------------

# An uploaded image: md5(uploader) + reversed ms + suffix, so a user's
# images are one prefix scan (account deletion, the sweep of unattached
# ones) and spread over the regions by uploader. "i": what a page needs
# (owner, alt text, size, the twit it belongs to); "m": the re-encoded
# image itself, in a MOB family (HBase 2's medium objects): cells of at
# least MEDIA_MOB_THRESHOLD bytes go to MOB files, outside the store files
# that compactions rewrite, so 100 KB images do not make every compaction
# of the region copy them again. Tens of KB is where the HBase book starts
# calling a cell medium; the images we keep (at most 1600 px, WebP) are
# mostly above it.
MEDIA_MOB_THRESHOLD = 64 * 1024
SCHEMA["media"] = {"i": ONE, "m": ONE}
# Apart from SCHEMA, whose families are happybase's options (and so Thrift1's,
# which has no MOB): the families made MOB families when made through Thrift2.
MOB_FAMILIES["media"] = {"m": MEDIA_MOB_THRESHOLD}
USER_DATA["media"] = "prefix md5(userid): attached images go with their twits, the rest here"


# -- direct messages (feeds/services/messages.py) ---------------------------------------

# A conversation's messages under its two participants' md5s (in byte order),
# newest first; each user's inbox, one row per conversation placed by its
# latest message; and per conversation where that row is and its unread
# count, with the user's total unread in their 16-byte row.
SCHEMA["messages"] = {"m": ONE}
SCHEMA["inbox"] = {"i": ONE}
SCHEMA["inboxState"] = {"s": ONE}
USER_DATA["messages"] = "every conversation of the user, both sides' messages (prefix of the pair)"
USER_DATA["inbox"] = "prefix md5(userid), and the partners' rows for the user's conversations"
USER_DATA["inboxState"] = "prefix md5(userid) (total included), and the partners' rows "
USER_DATA["inboxState"] += "for the user (their unread taken off their totals)"
# -- lists of accounts (feeds/services/lists.py) ---------------------------------------

# A user's lists, newest first under md5(owner), each with its member count;
# a list's members under md5(list key) + md5(member). A list's timeline is
# merged from its members' twits at read time (docs/schema.md says why), so
# no table says where a member is listed.
SCHEMA["userLists"] = {"l": ONE, "c": ONE}
SCHEMA["listMembers"] = {"m": ONE}
USER_DATA["userLists"] = "prefix md5(userid), each list with its members"
USER_DATA["listMembers"] = (
    "the rows of the user's lists (with them), and a scan filtered on m:userid "
    "(the user leaves others' lists, counts corrected)"
)
# -- edits of a twit (feeds/services/twits.py: edit_twit) -------------------------------

# The one family that keeps history: a twit's texts as versions of h:text,
# the original and each edit (an edit is allowed EDITS_MAX times, within
# 15 minutes), read back in one get with max_versions. A family of its own
# so that the twit's counts and marks in "t" keep one version each.
EDITS_MAX = 5
SCHEMA["twits"]["h"] = {"max_versions": EDITS_MAX + 1}
# -- quotes (feeds/services/twits.py) ------------------------------------------------------

# A twit's quotes, newest first under its key (keys.quote_key), each carrying
# the quoting twit as a replies row does, so its page is one prefix scan.
SCHEMA["quotes"] = {"q": ONE}
USER_DATA["quotes"] = (
    "under the user's twits (with them) and the user's quotes (with them, the quoted "
    "twit's count lowered)"
)
