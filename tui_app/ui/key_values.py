"""A record as aligned ``key  value`` lines, for detail panes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from tui_app.pii import PiiKind, mask_tree


def key_values(
    record: Mapping[str, Any],
    reveal: bool,
    indent: str = "",
    kinds: Mapping[str, PiiKind] | None = None,
) -> Text:
    """Personal data masked unless revealed (``kinds``: see :func:`mask_value`); nested
    values as JSON."""
    text = Text()
    width = max(map(len, record), default=0)
    for key, value in mask_tree(dict(record), reveal, kinds).items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value
        text.append(f"{indent}{key:>{width}}  ", style="bold")
        text.append(f"{shown}\n")
    return text
