"""What CI asks of a test run, read from the environment: nothing of the app
is imported here, so suites that run without Django (tests/localhbase) read
it too."""

from __future__ import annotations

import os

# CI (or TWITBASE_REQUIRE_HBASE=1) fails a test that needs real HBase, or its
# jars, when they are missing, rather than skipping it.
REQUIRE_REAL_HBASE = (
    os.environ.get("CI", "").lower() == "true" or os.environ.get("TWITBASE_REQUIRE_HBASE") == "1"
)
