"""The project's own app: listed last in INSTALLED_APPS, so its ``ready``
runs once every other app is ready (Django calls them in that order)."""

from __future__ import annotations

from django.apps import AppConfig


class TwitBaseConfig(AppConfig):
    name = "twitbase"
    verbose_name = "TwitBase"

    def ready(self) -> None:
        from . import startup

        # Every app imported and ready: what is alive now lives as long as
        # the process (twitbase/startup.py).
        startup.settle()
