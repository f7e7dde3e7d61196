"""Snapshot tests of the main screens: the same scenes ``producer-tui screenshots`` saves.

After a deliberate change of a screen, review the new pictures and accept them with
``pytest tests/test_ui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from tui_app.ui.scenes import SCENES, SIZE

AREA_SCENES = ["search-results", "orders-errors", "profiles", "bulk", "export", "settings", "watch"]
"""One scene of every area, for the small and plain terminals below."""
SSH_SIZE = (80, 24)
"""The SSH default: side panels stack, tables keep NPN, name and state in view."""


@pytest.mark.parametrize("name", list(SCENES))
def test_screen(snap_compare, ui_app, name):
    assert snap_compare(ui_app(), run_before=SCENES[name], terminal_size=SIZE)


@pytest.mark.parametrize("name", AREA_SCENES)
def test_screen_at_80x24(snap_compare, ui_app, name):
    assert snap_compare(ui_app(), run_before=SCENES[name], terminal_size=SSH_SIZE)


@pytest.mark.parametrize("name", AREA_SCENES)
def test_screen_in_16_colours(snap_compare, ui_app, name):
    """The ansi theme a 16-colour terminal gets: hints and focus in the terminal's own
    colours (the pictures show the ANSI colour names they use)."""

    async def scene(pilot) -> None:
        pilot.app.theme = "ansi-dark"
        await SCENES[name](pilot)

    assert snap_compare(ui_app(), run_before=scene, terminal_size=SSH_SIZE)
