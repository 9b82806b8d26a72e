from __future__ import annotations

from django.apps import AppConfig


class FeedsConfig(AppConfig):
    name = "feeds"
    verbose_name = "TwitBase feeds"
