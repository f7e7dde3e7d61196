"""The project's themes are found in a checkout and in an installed wheel alike."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(p.stem for p in (ROOT / "themes").glob("*.toml"))
PRINT_THEMES = (
    "from tui_app.ui.themes import load_themes; print(sorted(t.name for t in load_themes(print)))"
)


def test_a_checkout_loads_the_top_level_themes():
    out = subprocess.run(
        [sys.executable, "-c", PRINT_THEMES], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str(NAMES)


def test_an_installed_package_loads_the_themes_it_carries(tmp_path):
    """The wheel's layout (pyproject force-includes themes/ as tui_app/themes), with no
    repository folder beside it."""
    site = tmp_path / "site"
    shutil.copytree(
        ROOT / "tui_app", site / "tui_app", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(ROOT / "themes", site / "tui_app" / "themes")
    out = subprocess.run(
        [sys.executable, "-c", PRINT_THEMES],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PRODUCER_TUI_CONFIG": str(tmp_path / "c")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == str(NAMES)
