"""The local server can be published alone: localhbase/pyproject.toml (with
hbasethrift/pyproject.toml, the IDLs it loads) describes a distribution of
its own, which pins what TwitBase's own install pins for it and builds."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import localhbase

ROOT = Path(__file__).resolve().parents[2]


def project(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def pins(requirements: list[str]) -> dict[str, str]:
    """``{name: requirement}`` of a dependency list (names as pip compares them)."""
    return {re.split(r"[=<>!~\[ ;]", r, maxsplit=1)[0].lower(): r for r in requirements}


def test_the_server_distribution_pins_what_the_app_install_pins_for_it() -> None:
    root = project(ROOT / "pyproject.toml")
    server = project(ROOT / "localhbase" / "pyproject.toml")
    idls = project(ROOT / "hbasethrift" / "pyproject.toml")
    wanted = pins(server["project"]["dependencies"])
    app = pins(root["project"]["dependencies"])
    assert (
        wanted.pop(idls["project"]["name"])
        == f"{idls['project']['name']}=={idls['project']['version']}"
    )
    assert wanted == {
        **pins(root["project"]["optional-dependencies"]["localserver"]),
        "thriftpy2": app["thriftpy2"],
    }
    assert pins(idls["project"]["dependencies"]) == {"thriftpy2": app["thriftpy2"]}
    assert server["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "localhbase.__version__"}


def test_the_server_distribution_builds_the_files_and_modules_the_app_install_does() -> None:
    root = project(ROOT / "pyproject.toml")
    server = project(ROOT / "localhbase" / "pyproject.toml")
    data = server["tool"]["setuptools"]["package-data"]
    assert [f"hbasepb/{pattern}" for pattern in data["localhbase.hbasepb"]] == root["tool"][
        "setuptools"
    ]["package-data"]["localhbase"]
    setup = ast.parse((ROOT / "setup.py").read_text())
    modules = next(
        ast.literal_eval(node.value)
        for node in setup.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODULES"
    )
    built = {
        e["name"]: f"localhbase/{e['sources'][0]}"
        for e in server["tool"]["setuptools"]["ext-modules"]
    }
    assert built == {k: v for k, v in modules.items() if k.startswith("localhbase.")}


def test_the_server_and_its_idls_build_as_wheels_of_their_own(tmp_path: Path) -> None:
    """Built with this environment's setuptools (no download), from copies
    without the compiled modules this checkout has built: the optional
    extensions are left out, the rest must be there."""
    skip = shutil.ignore_patterns("*.c", "*.so", "__pycache__", "build", "*.egg-info")
    for package in ("localhbase", "hbasethrift"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=skip)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
             "-w", str(tmp_path / "wheels"), str(tmp_path / package)],
            check=True,
            capture_output=True,
        )  # fmt: skip
    (server,) = (tmp_path / "wheels").glob("twitbase_localhbase-*.whl")
    (idls,) = (tmp_path / "wheels").glob("twitbase_hbasethrift-*.whl")
    assert server.name.startswith(f"twitbase_localhbase-{localhbase.__version__}-")
    with zipfile.ZipFile(server) as wheel:
        names = set(wheel.namelist())
        assert {
            "localhbase/__init__.py",
            "localhbase/__main__.py",
            "localhbase/_wire.pyi",
            "localhbase/hbasepb/filter.desc",
        } <= names
        assert not any(n.startswith(("hbasethrift/", "tests/", "devtools/")) for n in names)
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "localhbase = localhbase:main" in wheel.read(entry_points).decode()
    with zipfile.ZipFile(idls) as wheel:
        assert {"hbasethrift/idl/hbase1.thrift", "hbasethrift/idl/hbase2.thrift"} <= set(
            wheel.namelist()
        )
