"""The OpenAPI document of the JSON API, served at ``GET /api/schema``.

django-ninja generates it from the operations in :mod:`feeds.api.views` (and
the modules beside it that register their own: reports, recovery, blocks,
bookmarks, lists) and the models in :mod:`feeds.api.schemas`; nothing here is
written by hand.
"""

from __future__ import annotations

from typing import Any

from . import blocks, bookmarks, edits, lists, media, messages, quotes, recovery, reports  # noqa: F401  (register their operations before the document)
from .views import document

SCHEMA: dict[str, Any] = document()
PATHS: dict[str, Any] = SCHEMA["paths"]
