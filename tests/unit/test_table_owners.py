"""Every table has one owner: the one module of feeds/services that reads and
writes it, in domain verbs. Other services, the worker, the bulk loader and
the console compose those verbs and never name the table.

A module "names" a table when a string equal to the table's name appears in
its code (not in a docstring): ``table_name("twits")``, a bulk loader's
``out.put("twits", ...)``, a module constant. The test reads the source, so
it holds for code paths no other test reaches.

``DEBT`` lists the (module, table) pairs that still break the rule, each a
step of issue 35 not yet taken. The list may only shrink: a pair that no
longer occurs must leave it too, so the list stays a true account.
"""

from __future__ import annotations

import ast
from pathlib import Path

from storage.schema import SCHEMA

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("feeds/services", "worker")

# The table -> the module (under feeds/services) that owns it.
OWNERS = {
    "users": "accounts",
    "userSearch": "userindex",
    "avatars": "avatars",
    "twits": "twits",
    "replies": "twits",
    "pendingFanouts": "pending",
    "follows": "follows",
    "followedBy": "follows",
    "followerLists": "follows",
    "celebrities": "streams",
    "suspensions": "accounts",
    "streams": "streams",
    "likers": "reactions",
    "likes": "reactions",
    "reposters": "reactions",
    "reposts": "reactions",
    "notifications": "notify",
    "notifyGroups": "notify",
    "tokens": "tokens",
    "ratelimits": "ratelimit",
    "logins": "ratelimit",
    "metrics": "metrics",
    "audit": "console",
    "hashtags": "tagindex",
    "tagCounts": "tagindex",
    "idempotency": "idempotency",
    "reportsBySubject": "reports",
    "reportSubjects": "reports",
    "reportQueue": "reports",
    "blocks": "blocks",
    "blockedBy": "blocks",
    "mutes": "blocks",
    "mutedWords": "blocks",
    "twitWords": "tagindex",
    "bookmarkers": "reactions",
    "bookmarks": "reactions",
    "messages": "messages",
    "inbox": "messages",
    "inboxState": "messages",
    "userLists": "lists",
    "listMembers": "lists",
    "quotes": "twits",
}
OWNERS["media"] = "media"  # images in twits

# (module, table) pairs that still open a table they do not own.
DEBT: set[tuple[str, str]] = set()


def _strings(path: Path) -> set[str]:
    """The string constants of a module's code, docstrings left out."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        # ``__all__`` lists verbs, some named as a table is (``likers``).
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            docstrings.update(id(n) for n in ast.walk(node.value))
        # A progress stage's label (``report("likes", done, total)``) is a word
        # for the user, not a table.
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "report"
            and node.args
        ):
            docstrings.add(id(node.args[0]))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    }


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[2:] if rel.parts[:2] == ("feeds", "services") else rel.parts
    return ".".join(p for p in parts if p != "__init__") or "services"


def named_tables() -> set[tuple[str, str]]:
    """Every (module, table) pair where a module names a table."""
    found = set()
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            for s in _strings(path) & set(SCHEMA):
                found.add((_module(path), s))
    return found


def _owner_of(module: str) -> str:
    """A package's modules share their package's ownership (console.audit is console's)."""
    return module.split(".")[0]


def test_every_table_has_an_owner_that_exists() -> None:
    assert set(OWNERS) == set(SCHEMA)
    services = ROOT / "feeds" / "services"
    for owner in set(OWNERS.values()):
        assert (services / f"{owner}.py").exists() or (services / owner).is_dir(), owner


def test_only_its_owner_names_a_table() -> None:
    strays = {(m, t) for m, t in named_tables() if _owner_of(m) != OWNERS[t]}
    assert strays - DEBT == set(), "a module names a table it does not own"


def test_the_debt_list_only_shrinks() -> None:
    strays = {(m, t) for m, t in named_tables() if _owner_of(m) != OWNERS[t]}
    assert DEBT - strays == set(), "paid off: take these pairs out of DEBT"


def test_a_stray_table_name_is_caught(tmp_path: Path) -> None:
    src = tmp_path / "x.py"
    src.write_text('"""Mentions twits in a docstring."""\nT = table_name("twits")\n')
    assert _strings(src) & set(SCHEMA) == {"twits"}
    src.write_text('"""Mentions twits in a docstring."""\n')
    assert _strings(src) & set(SCHEMA) == set()
