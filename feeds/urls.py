from __future__ import annotations

from django.urls import path

from .views import (
    account,
    avatars,
    bookmarks,
    edits,
    home,
    lists,
    messages,
    notifications,
    people,
    pins,
    quotes,
    recovery,
    reports,
    safety,
    search,
    sessions,
    site,
    twits,
)

urlpatterns = [
    path("healthz", site.healthz, name="healthz"),
    path("favicon.ico", site.favicon, name="favicon"),
    path("", home.home, name="home"),
    path("signup", sessions.signup, name="signup"),
    path("login", sessions.login, name="login"),
    path("login/code", recovery.login_code, name="login_code"),
    path("password/reset", recovery.password_reset, name="password_reset"),
    path(
        "password/reset/<str:token>",
        recovery.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path("account/2fa", recovery.two_factor, name="two_factor"),
    path("logout", sessions.logout, name="logout"),
    path("logout/everywhere", sessions.logout_everywhere, name="logout_everywhere"),
    path("account", account.account, name="account"),
    path("u/<str:userid>", people.profile, name="profile"),
    path("u/<str:userid>/followers", people.followers, name="followers"),
    path("u/<str:userid>/following", people.following, name="following"),
    path("u/<str:userid>/follow", people.follow, name="follow"),
    path("u/<str:userid>/unfollow", people.unfollow, name="unfollow"),
    path("u/<str:userid>/block", people.block, name="block"),
    path("u/<str:userid>/unblock", people.unblock, name="unblock"),
    path("u/<str:userid>/mute", people.mute, name="mute"),
    path("u/<str:userid>/unmute", people.unmute, name="unmute"),
    path("account/muted", safety.muted, name="muted"),
    path("account/muted/words", safety.mute_word, name="mute_word"),
    path("account/muted/words/remove", safety.unmute_word, name="unmute_word"),
    path("u/<str:userid>/report", reports.report_user, name="report_user"),
    path("u/<str:userid>/t/<str:twit_id>", twits.twit, name="twit"),
    path("u/<str:userid>/t/<str:twit_id>/delete", twits.delete_twit, name="delete_twit"),
    path("u/<str:userid>/t/<str:twit_id>/like", twits.like, name="like"),
    path("u/<str:userid>/t/<str:twit_id>/unlike", twits.unlike, name="unlike"),
    path("u/<str:userid>/t/<str:twit_id>/repost", twits.repost, name="repost"),
    path("u/<str:userid>/t/<str:twit_id>/unrepost", twits.unrepost, name="unrepost"),
    path("u/<str:userid>/t/<str:twit_id>/report", reports.report_twit, name="report_twit"),
    path("u/<str:userid>/t/<str:twit_id>/pin", pins.pin, name="pin_twit"),
    path("u/<str:userid>/t/<str:twit_id>/bookmark", bookmarks.toggle, name="bookmark"),
    path("bookmarks", bookmarks.bookmarks, name="bookmarks"),
    # live updates: the home page's "N new twits" poll
    path("stream/new", home.stream_new, name="stream_new"),
    path("tags/<str:tag>", search.tag, name="tag"),
    path("search", search.search, name="search"),
    path("account/profile", account.profile_update, name="profile_update"),
    path("account/avatar", account.avatar_upload, name="avatar_upload"),
    path("account/avatar/remove", account.avatar_remove, name="avatar_remove"),
    path("account/delete", account.delete_account, name="delete_account"),
    path("u/<str:userid>/avatar", avatars.avatar, name="avatar"),
    path("notifications", notifications.notifications, name="notifications"),
    # direct messages (feeds/views/messages.py)
    path("messages", messages.inbox, name="messages"),
    # "-" is in no userid: this is never a conversation.
    path("messages/-/unread", messages.unread_new, name="messages_new"),
    path("messages/<str:userid>", messages.conversation, name="conversation"),
    path("messages/<str:userid>/new", messages.conversation_new, name="conversation_new"),
    # lists of accounts (views/lists.py)
    path("lists", lists.lists_page, name="lists"),
    path("lists/new", lists.create, name="create_list"),
    path("lists/<str:list_id>", lists.list_page, name="list"),
    path("lists/<str:list_id>/delete", lists.delete, name="delete_list"),
    path(
        "lists/<str:list_id>/members/<str:userid>/remove",
        lists.remove_member,
        name="remove_list_member",
    ),
    path("u/<str:userid>/lists", lists.add_to_list, name="add_to_list"),
    path("u/<str:userid>/lists/<str:list_id>", lists.toggle_member, name="toggle_list_member"),
]

# -- edits (feeds/views/edits.py) ---------------------------------------------------------
urlpatterns += [
    path("u/<str:userid>/t/<str:twit_id>/edit", edits.edit_twit, name="edit_twit"),
    path("u/<str:userid>/t/<str:twit_id>/history", edits.twit_history, name="twit_history"),
]

# -- quotes (feeds/views/quotes.py) ----------------------------------------------------------
urlpatterns += [
    path("u/<str:userid>/t/<str:twit_id>/quote", quotes.quote, name="quote"),
    path("u/<str:userid>/t/<str:twit_id>/quotes", quotes.quotes, name="quotes"),
]

# -- images in twits (feeds/views/media.py) ----------------------------------------------

from .views import media  # noqa: E402  (its own block: other branches add to the list above)

urlpatterns += [path("media/<str:media_id>", media.image, name="media")]
