"""Options the development commands share."""

from __future__ import annotations

import argparse


def add_targets(parser: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    """``--targets``: the stores a benchmark runs on, a comma-separated subset
    of ``choices`` (default all of them), parsed to a tuple in the order given."""

    def targets(text: str) -> tuple[str, ...]:
        picked = tuple(t.strip() for t in text.split(",") if t.strip())
        unknown = set(picked) - set(choices)
        if unknown or not picked:
            raise argparse.ArgumentTypeError(
                f"takes {' and/or '.join(choices)}, comma-separated; got {text!r}"
            )
        return picked

    parser.add_argument(
        "--targets",
        type=targets,
        default=choices,
        help=f"comma-separated: {', '.join(choices)} (default all)",
    )
