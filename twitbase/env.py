"""Typed readers for settings that come from environment variables.

Each reader returns the default when the variable is unset or empty, and
raises ImproperlyConfigured naming the variable and the bad value otherwise,
so a typo in a deployment fails at start-up with a message that says where.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Sequence

from django.core.exceptions import ImproperlyConfigured

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return value.strip() if value is not None and value.strip() else None


def env_is_set(name: str) -> bool:
    """Whether ``name`` is set to something (an empty value counts as unset)."""
    return _raw(name) is not None


def env_str(name: str, default: str) -> str:
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off"
    )


def env_int(
    name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum {minimum}")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name}={number} is above the maximum {maximum}")
    return number


def env_list(name: str, default: Sequence[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: Sequence[str]) -> str:
    value = _raw(name)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(choices)}")
    return value


def env_header(name: str) -> tuple[str, str] | None:
    """An HTTP header and value, written ``Header-Name: value``, as Django's
    SECURE_PROXY_SSL_HEADER wants it (``("HTTP_HEADER_NAME", "value")``)."""
    value = _raw(name)
    if value is None:
        return None
    header, sep, expected = (part.strip() for part in value.partition(":"))
    if not sep or not header or not expected or not all(c.isalnum() or c == "-" for c in header):
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a header and value; write it as 'X-Forwarded-Proto: https'"
        )
    return "HTTP_" + header.upper().replace("-", "_"), expected


def env_networks(name: str, default: Sequence[str]) -> list[IPNetwork]:
    """Comma-separated IP networks (``10.0.0.0/8``, ``::1``: an address is
    a network of one); ``none`` is no network at all."""
    value = _raw(name)
    if value is not None and value.lower() == "none":
        return []
    networks = []
    for item in env_list(name, default):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}={value!r}: {item!r} is not an IP network such as 10.0.0.0/8; "
                "use 'none' for no network"
            ) from None
    return networks


def exit_on_bad_settings(program: str) -> None:
    """Load the settings now; if a value is missing or bad, print one line
    naming it and exit with status 2, instead of a traceback from wherever
    the settings were first read. Each entry point (manage.py, gunicorn,
    the web application, Celery's command line) calls it first."""
    from django.conf import settings

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
    try:
        settings.INSTALLED_APPS  # noqa: B018  (reading one setting loads them all)
    except ImproperlyConfigured as exc:
        print(f"{program}: configuration error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
