"""Shared fixtures. Config isolation is autouse: no test may read or write a developer's
own config or data folder."""

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the config file and data folder at a temporary folder; returns the config path.

    The file does not exist yet, so the app sees a first run unless the test writes it.
    """
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("PRODUCER_TUI_CONFIG", str(path))
    monkeypatch.setenv("PRODUCER_TUI_DATA", str(tmp_path / "data"))
    return path
