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
    path("notifications", views.notifications, name="notifications"),
]
