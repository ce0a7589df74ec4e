"""The Markdown pieces the lab's reports share: a number with its standard error, and a table."""

from __future__ import annotations

import math
from collections.abc import Sequence


def format_value(value: float, se: float) -> str:
    """``value ± se`` to 3 and 2 significant digits; ``value`` alone when ``se`` is NaN, "-" when
    ``value`` is."""
    if math.isnan(value):
        return "-"
    return f"{value:.3g}" if math.isnan(se) else f"{value:.3g} ± {se:.2g}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]
