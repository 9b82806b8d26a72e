"""WSGI entry point: ``gunicorn twitbase.wsgi`` or Django's runserver."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
application = get_wsgi_application()
