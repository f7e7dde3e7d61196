"""Snapshot tests of the main screens: the same scenes ``producer-tui screenshots`` saves.

After a deliberate change of a screen, review the new pictures and accept them with
``pytest tests/test_ui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from tui_app.ui.scenes import SCENES, SIZE


@pytest.mark.parametrize("name", list(SCENES))
def test_screen(snap_compare, ui_app, name):
    assert snap_compare(ui_app(), run_before=SCENES[name], terminal_size=SIZE)
