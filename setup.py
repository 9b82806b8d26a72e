"""The one compiled module, the local server's bulk put path
(localhbase/_wire.pyx); everything else is in pyproject.toml.

The extension is optional: where it does not build (no C compiler), the
local server decodes every call with thriftpy2, as before, only slower.
"""

from pathlib import Path

from setuptools import Extension, setup

SOURCE = Path("localhbase/_wire.pyx")

extensions = []
if SOURCE.exists():  # the app image copies no localhbase
    from Cython.Build import cythonize

    extensions = cythonize(
        [Extension("localhbase._wire", [str(SOURCE)], optional=True)],
        compiler_directives={"language_level": 3},
    )

setup(ext_modules=extensions)
