"""`pip install` builds the storage layer's bulk put requests
(storage/_bulk.pyx, setup.py) where there is a C compiler. Without it the
app sends its batches through happybase's Thrift objects, only slower; CI,
which has a compiler, insists on it. (The local server's compiled modules:
tests/localhbase/test_compiled_wire_built.py.)"""

from __future__ import annotations

import os

import pytest

from storage import ops


def test_the_bulk_put_module_is_built() -> None:
    if not ops.COMPILED:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("storage._bulk is not built; CI needs it")
        pytest.skip("storage._bulk is not built (no C compiler at install)")
