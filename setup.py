"""The compiled modules, the rest being in pyproject.toml: the local
server's hot wire paths (localhbase/_wire.pyx) and row reads
(localhbase/_rows.pyx), and the bulk put requests of the storage layer
(storage/_bulk.pyx).

All are optional: where they do not build (no C compiler), the local
server decodes and encodes with thriftpy2 and reads rows in Python, and
storage sends its batches through happybase's Thrift objects, as before,
only slower.
"""

import os
from pathlib import Path

from setuptools import Extension, setup

MODULES = {
    "localhbase._wire": "localhbase/_wire.pyx",
    "localhbase._rows": "localhbase/_rows.pyx",
    "storage._bulk": "storage/_bulk.pyx",
}

# Only those whose source is here: the app image copies no localhbase.
found = [
    Extension(name, [src], optional=True) for name, src in MODULES.items() if Path(src).exists()
]
extensions = []
if found:
    from Cython.Build import cythonize

    extensions = cythonize(
        found, compiler_directives={"language_level": 3}, nthreads=os.cpu_count() or 1
    )

# The three compile side by side, one per core: _wire alone takes half of
# the 9 s they take one after another, the install's longest step.
setup(ext_modules=extensions, options={"build_ext": {"parallel": os.cpu_count() or 1}})
