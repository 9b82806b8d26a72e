""".env.example names every environment variable TwitBase reads: each one
the settings (and the product's other modules) read through the typed
readers or os.environ, and each one docker-compose.yml interpolates, with a
comment line above it saying what it does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("twitbase", "feeds", "storage", "worker")
READS = re.compile(
    r"""(?:env_[a-z_]+\(\s*|os\.environ(?:\.get)?[\[(]\s*|getenv\(\s*)"([A-Z][A-Z0-9_]+)\""""
)
# Named by a constant rather than a literal where they are read.
ALSO_READ = {"PROMETHEUS_MULTIPROC_DIR"}


def read_by_the_product() -> set[str]:
    names = set(ALSO_READ)
    for package in PRODUCT:
        for path in (ROOT / package).rglob("*.py"):
            names |= set(READS.findall(path.read_text()))
    return names


def read_by_compose() -> set[str]:
    return set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)", (ROOT / "docker-compose.yml").read_text()))


def documented() -> dict[str, str]:
    """Each variable in .env.example (set or commented out), with the
    comment line just above it ('' if none)."""
    found: dict[str, str] = {}
    comment = ""
    for line in (ROOT / ".env.example").read_text().splitlines():
        setting = re.match(r"#? ?([A-Z][A-Z0-9_]+)=", line)
        if setting:
            found[setting.group(1)] = comment
        elif line.startswith("# ") and not line.startswith("# --"):
            comment = line
        elif not line.strip():
            comment = ""
    return found


def test_the_scan_finds_what_it_should() -> None:
    # The test would pass vacuously if the patterns found nothing.
    product = read_by_the_product()
    assert {"DJANGO_SECRET_KEY", "TWITBASE_HBASE_HOST", "CELERY_BROKER_URL"} <= product
    assert {"TWITBASE_ENV_FILE", "TWITBASE_HTTP_PORT"} <= read_by_compose()


@pytest.mark.parametrize("source", ["the product", "docker-compose.yml"])
def test_every_variable_read_is_in_env_example_with_a_comment(source: str) -> None:
    names = read_by_the_product() if source == "the product" else read_by_compose()
    listed = documented()
    missing = sorted(names - listed.keys())
    assert missing == [], f"read by {source} but not in .env.example: {missing}"
    bare = sorted(name for name in names if not listed[name])
    assert bare == [], f"in .env.example without a comment saying what it does: {bare}"


def test_env_example_lists_nothing_that_is_not_read() -> None:
    stale = sorted(documented().keys() - read_by_the_product() - read_by_compose())
    assert stale == [], f"in .env.example but read by nothing: {stale}"
