"""`pip install` builds the local server's compiled modules (setup.py) where
there is a C compiler: its wire paths (localhbase/_wire.pyx) and row reads
(localhbase/_rows.pyx). Without them it gives the same answers, only
slower, so their own tests skip; CI, which has a compiler, insists on them.
(The storage layer's: tests/unit/test_compiled_bulk_built.py.)"""

from __future__ import annotations

import os

import pytest

from localhbase import server, store


@pytest.mark.parametrize(
    ("module", "built"),
    [
        ("localhbase._wire", server.COMPILED),
        ("localhbase._rows", store.COMPILED),
    ],
)
def test_the_compiled_modules_are_built(module: str, built: bool) -> None:
    if not built:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{module} is not built; CI needs it")
        pytest.skip(f"{module} is not built (no C compiler at install)")
