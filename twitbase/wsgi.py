"""WSGI entry point: ``gunicorn twitbase.wsgi`` or Django's runserver."""

from __future__ import annotations

import os

from twitbase import startup

# Django is set up next: no collector passes over its imports (startup.py).
startup.pause()

from django.core.wsgi import get_wsgi_application  # noqa: E402

from twitbase.env import exit_on_bad_settings  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
exit_on_bad_settings("twitbase.wsgi")
application = get_wsgi_application()
