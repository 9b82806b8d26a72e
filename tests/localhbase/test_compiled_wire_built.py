"""`pip install` builds the compiled modules (setup.py) where there is a C
compiler: the local server's wire paths (localhbase/_wire.pyx) and row
reads (localhbase/_rows.pyx), and the storage layer's bulk put requests
(storage/_bulk.pyx). Without them the
app gives the same answers, only slower, so their own tests skip; CI,
which has a compiler, insists on them."""

from __future__ import annotations

import os

import pytest

from localhbase import server, store
from storage import ops


@pytest.mark.parametrize(
    ("module", "built"),
    [
        ("localhbase._wire", server.COMPILED),
        ("localhbase._rows", store.COMPILED),
        ("storage._bulk", ops.COMPILED),
    ],
)
def test_the_compiled_modules_are_built(module: str, built: bool) -> None:
    if not built:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{module} is not built; CI needs it")
        pytest.skip(f"{module} is not built (no C compiler at install)")
