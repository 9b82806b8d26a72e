from __future__ import annotations

from django.apps import AppConfig


class StorageConfig(AppConfig):
    name = "storage"
    verbose_name = "HBase storage"
