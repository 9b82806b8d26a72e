"""The site's stylesheet parses: every block it opens it closes. A lost
closing brace (a merge of two appended blocks did it once) silently swallows
every rule after it, and the pages still load: nothing else would notice."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "feeds" / "static" / "feeds"


def test_every_block_the_stylesheets_open_is_closed() -> None:
    for sheet in STATIC.glob("*.css"):
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
        depth = 0
        for number, line in enumerate(text.splitlines(), 1):
            depth += line.count("{") - line.count("}")
            assert depth >= 0, f"{sheet.name}:{number}: a '}}' closes nothing"
        assert depth == 0, f"{sheet.name}: {depth} block(s) left open"
