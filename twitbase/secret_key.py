"""The development secret key: one per data directory, kept in a file there.

With DJANGO_DEBUG=1 and no DJANGO_SECRET_KEY, settings read the key from
``secret_key`` in TWITBASE_DATA_DIR, creating it on first use. Each
devstack (each data directory) thus signs its cookies with a key of its
own that nobody else knows, and keeps it across restarts so sessions
survive them. There is no constant key to forge a cookie with.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

FILE_NAME = "secret_key"


def unsafe_secret_key(key: str) -> str:
    """Why ``key`` is unsafe for production, or "" if it is not: the rules
    of Django's own deployment check (security.W009), applied at start-up so
    that a weak key stops the service instead of warning once."""
    from django.core.checks.security.base import (
        SECRET_KEY_INSECURE_PREFIX,
        SECRET_KEY_MIN_LENGTH,
        SECRET_KEY_MIN_UNIQUE_CHARACTERS,
    )

    if key.startswith(SECRET_KEY_INSECURE_PREFIX):
        return (
            f"it starts with {SECRET_KEY_INSECURE_PREFIX!r}, Django's mark of a generated dev key"
        )
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"{len(key)} characters, under {SECRET_KEY_MIN_LENGTH}"
    if len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS:
        return f"fewer than {SECRET_KEY_MIN_UNIQUE_CHARACTERS} different characters"
    return ""


def data_dir_secret_key(data_dir: Path) -> str:
    """The key in ``data_dir/secret_key``; a new random one (mode 0600) if absent.

    Safe when several processes start at once (devstack's web server and
    workers): the key is written whole to a private temporary file, then
    linked into place, which fails if another process got there first; all
    of them then read the one that won.
    """
    path = data_dir / FILE_NAME
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = data_dir / f".{FILE_NAME}.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(get_random_secret_key() + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    key = path.read_text().strip()
    if len(key) < 32:
        raise ImproperlyConfigured(
            f"{path} holds no usable secret key (under 32 characters); delete it to make a new one"
        )
    return key
