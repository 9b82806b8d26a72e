"""The app image's file list cannot drift from the packages: the Dockerfile
copies exactly the product packages that pyproject.toml's import contract
names ("the product never imports development tooling ..."), and every
package of the repository is on one side of that line or the other.

That the image then builds and runs is tests/deploy/test_stack.py's part."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = "The product never imports development tooling"


def product_contract() -> dict[str, list[str]]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
    (found,) = [c for c in contracts if c["name"].startswith(CONTRACT)]
    return dict(found)


def copied_by_the_app_image() -> set[str]:
    text = (ROOT / "Dockerfile").read_text()
    return {
        source
        for source, _ in re.findall(r"^COPY (\S+) (\S+)$", text, re.MULTILINE)
        if (ROOT / source / "__init__.py").exists()
    }


def test_the_app_image_copies_exactly_the_product_packages() -> None:
    product = set(product_contract()["source_modules"])
    assert {"twitbase", "feeds", "storage", "worker"} <= product
    assert copied_by_the_app_image() == product


def test_every_package_is_product_or_tooling() -> None:
    contract = product_contract()
    sides = set(contract["source_modules"]) | set(contract["forbidden_modules"]) | {"tests"}
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    unplaced = sorted(packages - sides)
    assert unplaced == [], (
        f"{unplaced}: add each to the product (the contract's source_modules and a COPY "
        "in the Dockerfile) or to the tooling (its forbidden_modules)"
    )
