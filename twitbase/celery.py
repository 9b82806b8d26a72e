"""The Celery app, wired as in Celery's Django example."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")

app = Celery("twitbase")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
