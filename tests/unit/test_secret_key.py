"""No constant secret key (issue 9): in development, one random key per data
directory, kept there."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from twitbase.secret_key import data_dir_secret_key

ROOT = Path(__file__).resolve().parents[2]


def test_each_data_dir_has_its_own_key_kept_with_mode_0600(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two" / "nested"
    key = data_dir_secret_key(one)
    assert len(key) >= 50
    assert data_dir_secret_key(one) == key
    assert data_dir_secret_key(two) != key
    assert stat.S_IMODE((one / "secret_key").stat().st_mode) == 0o600
    assert [p.name for p in one.iterdir()] == ["secret_key"]


def settings_key(env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", "from twitbase import settings; print(settings.SECRET_KEY)"],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.strip()


def test_settings_in_debug_read_the_data_dirs_key(tmp_path: Path) -> None:
    debug = {"DJANGO_DEBUG": "1", "DJANGO_SECRET_KEY": ""}
    first = settings_key({**debug, "TWITBASE_DATA_DIR": str(tmp_path / "a")})
    assert first == (tmp_path / "a" / "secret_key").read_text().strip()
    assert settings_key({**debug, "TWITBASE_DATA_DIR": str(tmp_path / "a")}) == first
    assert settings_key({**debug, "TWITBASE_DATA_DIR": str(tmp_path / "b")}) != first
    # A key in the environment wins, and no file is made.
    given = {"DJANGO_SECRET_KEY": "k" * 50, "TWITBASE_DATA_DIR": str(tmp_path / "c")}
    assert settings_key({**debug, **given}) == "k" * 50
    assert not (tmp_path / "c").exists()


def test_processes_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; "
        "from twitbase.secret_key import data_dir_secret_key; "
        "print(data_dir_secret_key(Path(sys.argv[1])))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path / "d")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    keys = {p.communicate()[0].strip() for p in procs}
    assert len(keys) == 1
    assert keys == {(tmp_path / "d" / "secret_key").read_text().strip()}


def test_the_old_constant_key_is_gone() -> None:
    old = "insecure-development-key-do-not-use-in-production"
    assert old != settings.SECRET_KEY
    for path in (ROOT / "twitbase").rglob("*.py"):
        assert old not in path.read_text(), path
