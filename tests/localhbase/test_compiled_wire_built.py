"""`pip install` builds the compiled wire paths (localhbase/_wire.pyx, by
setup.py) where there is a C compiler. Without them the local server gives
the same answers, only slower, so their own tests skip; CI, which has a
compiler, insists on them."""

from __future__ import annotations

import os

import pytest

from localhbase import server


def test_the_compiled_wire_paths_are_built() -> None:
    if not server.COMPILED:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("localhbase._wire is not built; CI needs the compiled paths")
        pytest.skip("localhbase._wire is not built (no C compiler at install)")
