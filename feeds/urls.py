from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("", views.home, name="home"),
    path("signup", views.signup, name="signup"),
    path("login", views.login, name="login"),
    path("logout", views.logout, name="logout"),
    path("logout/everywhere", views.logout_everywhere, name="logout_everywhere"),
    path("account", views.account, name="account"),
    path("u/<str:userid>", views.profile, name="profile"),
    path("u/<str:userid>/followers", views.followers, name="followers"),
    path("u/<str:userid>/following", views.following, name="following"),
    path("u/<str:userid>/follow", views.follow, name="follow"),
    path("u/<str:userid>/unfollow", views.unfollow, name="unfollow"),
    path("u/<str:userid>/t/<str:twit_id>", views.twit, name="twit"),
    path("u/<str:userid>/t/<str:twit_id>/delete", views.delete_twit, name="delete_twit"),
    path("u/<str:userid>/t/<str:twit_id>/like", views.like, name="like"),
    path("u/<str:userid>/t/<str:twit_id>/unlike", views.unlike, name="unlike"),
    path("u/<str:userid>/t/<str:twit_id>/repost", views.repost, name="repost"),
    path("u/<str:userid>/t/<str:twit_id>/unrepost", views.unrepost, name="unrepost"),
    # live updates: the home page's "N new twits" poll
    path("stream/new", views.stream_new, name="stream_new"),
    path("tags/<str:tag>", views.tag, name="tag"),
    path("search", views.search, name="search"),
    # account branch: avatars, account deletion
    path("account/avatar", views.avatar_upload, name="avatar_upload"),
    path("account/avatar/remove", views.avatar_remove, name="avatar_remove"),
    path("account/delete", views.delete_account, name="delete_account"),
    path("u/<str:userid>/avatar", views.avatar, name="avatar"),
    path("notifications", views.notifications, name="notifications"),
]
