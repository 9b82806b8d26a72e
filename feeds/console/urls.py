from __future__ import annotations

from django.urls import path

from . import reports, views

app_name = "console"

urlpatterns = [
    path("", views.index, name="index"),
    path("tables", views.tables, name="tables"),
    path("tables/count", views.count_tables, name="count_tables"),
    path("rows", views.rows, name="rows"),
    path("keys", views.key_design, name="keys"),
    path("fanout", views.fanout, name="fanout"),
    path("fanout/requeue", views.requeue, name="requeue"),
    path("fanout/sweep", views.sweep, name="sweep"),
    path("users", views.users, name="users"),
    path("users/<str:userid>", views.user, name="user"),
    path("users/<str:userid>/disable", views.disable, name="disable"),
    path("users/<str:userid>/enable", views.enable, name="enable"),
    path("users/<str:userid>/2fa/clear", views.clear_two_factor, name="clear_two_factor"),
    path("twits/delete", views.delete_twit, name="delete_twit"),
    path("audit", views.audit, name="audit"),
    path("reports", reports.queue, name="reports"),
    path("reports/act", reports.act, name="report_action"),
    path("reports/<str:subject_id>", reports.subject, name="report_subject"),
]
