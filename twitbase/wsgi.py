"""WSGI entry point: ``gunicorn twitbase.wsgi`` or Django's runserver."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from twitbase.env import exit_on_bad_settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
exit_on_bad_settings("twitbase.wsgi")
application = get_wsgi_application()
