"""Shared fixtures. Config isolation is autouse: no test may read or write a developer's
own config or data folder."""

import shutil
from pathlib import Path

import pytest

from tui_app.ui.scenes import SCENE_DAY


@pytest.fixture(autouse=True)
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the config file and data folder at a temporary folder; returns the config path.

    The file does not exist yet, so the app sees a first run unless the test writes it.
    """
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("PRODUCER_TUI_CONFIG", str(path))
    monkeypatch.setenv("PRODUCER_TUI_DATA", str(tmp_path / "data"))
    return path


UI_TODAY = SCENE_DAY
"""The date UI tests run on: the embedded sandbox is seeded for it, and licenses are
judged against it, so screens and snapshots do not change with the calendar."""


@pytest.fixture(scope="session")
def seeded_sandbox_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded sandbox's database, seeded once per test session (about 1.5 s)."""
    from tui_app.sandbox.app import Sandbox, SandboxSettings

    path = tmp_path_factory.mktemp("sandbox") / "sandbox-42.db"
    sandbox = Sandbox(SandboxSettings(db_path=path, seed=42, today=UI_TODAY))
    sandbox.registry.ensure_seeded(42, 5000, 1000, today=UI_TODAY)
    sandbox.db.close()
    return path


@pytest.fixture
def ui_app(config_file: Path, seeded_sandbox_db: Path):
    """A factory of ``ProducerApp`` on the embedded sandbox, its database copied from the
    session's seeded one, so each test starts from the same registry."""
    from tui_app.config import data_dir, load_config
    from tui_app.ui.app import ProducerApp

    target = data_dir() / "sandbox-42.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, target)

    def make(**kwargs) -> ProducerApp:
        return ProducerApp(load_config(), today=UI_TODAY, **kwargs)

    return make
