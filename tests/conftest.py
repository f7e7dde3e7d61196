"""Shared fixtures. Config isolation is autouse: no test may read or write a developer's
own config or data folder."""

import gc
import inspect
import os
import shutil
from pathlib import Path

import pytest
import sandbox_server
from ui_support import record_notifications

from tui_app.ui.scenes import SCENE_DAY


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the README's command) runs a worker more than the cores. A Pilot test
    spends about a sixth of its time waiting (for the app to go idle, for a thread, for a
    served sandbox or a bulk worker), and one more worker fills those waits: on 2 cores
    the suite took 290 s with 2 workers, 246 s with 3 and 247 s with 4.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when set (xdist's own rule)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    from xdist.plugin import pytest_xdist_auto_num_workers as cores

    return cores(config) + 1


def pytest_configure(config: pytest.Config) -> None:
    """Two settings of the harness, not of the app, that halve the Pilot tests' wall time.

    - Pilot's ``press`` and ``pause`` wait for the process to go idle: they sleep in steps
      of 20 ms until a step passes with under 1 ms of CPU (``textual._wait``), so every key
      cost at least 40 ms of sleep, about a third of the suite's wall time. Steps of 5 ms
      keep the same test (a step with under 1/20 of its length in CPU) and answer sooner.
      A test that needs the app to reach a state waits for that state, not for time.
    - Each test builds and drops a whole app (thousands of widgets, styles and messages):
      with the collector's default first threshold (700 objects) a Pilot test spends about
      a sixth of its CPU in collections that find little. Collecting less often costs only
      memory the next test reuses.
    """
    import textual._wait

    textual._wait.SLEEP_GRANULARITY = 0.005
    textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 20
    gc.set_threshold(50_000, 20, 100)


@pytest.fixture(autouse=True)
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the config file and data folder at a temporary folder; returns the config path.

    The file does not exist yet, so the app sees a first run unless the test writes it.
    """
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("PRODUCER_TUI_CONFIG", str(path))
    monkeypatch.setenv("PRODUCER_TUI_DATA", str(tmp_path / "data"))
    return path


@pytest.fixture(autouse=True)
def truecolour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see a truecolour terminal whatever runs them (TERM=xterm alone means 16
    colours, where the app picks its ansi theme): pictures do not change with the CI's
    terminal. Tests of the 16-colour case set it themselves."""
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)


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


# --- both sandbox dialects (issue 10) --------------------------------------------------
#
# Integration tests of the client, the CLI and the screens run against the sandbox in each
# of its dialects: "native" and "minimal" (tui_app/sandbox/dialect.py). Which tests:
DIALECT_UI_MODULES = frozenset(
    {
        "test_ui_search.py",
        "test_ui_orders.py",
        "test_ui_export.py",
        "test_ui_records.py",
        "test_dialects.py",
    }
)
"""Modules whose ``ui_app`` tests run on the embedded sandbox in both dialects (snapshot
and settings tests keep the native one: their pictures are of our own shapes). The Bulk
and Profiles screens keep the native one too, to hold CI under 15 minutes: the bulk
pipeline meets both dialects in test_bulk_pipeline.py and test_bulk_cli.py, and a profile
import's answer in test_dialects.py."""
SERVED_FIXTURES = {
    "test_bulk_cli.py": "sandbox",
    "test_bulk_pipeline.py": "sandbox",
    "test_dialects.py": "served_sandbox",
}
"""Per module, its module-scoped fixture that serves the sandbox: it is started once per
dialect. Tests of these modules that call ``serve()`` themselves run in both too."""


def serves_in_either_dialect(source: str) -> bool:
    """A test that serves the sandbox itself, in no dialect of its own choosing."""
    return "serve(" in source and '"--dialect"' not in source


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.definition.path.name
    served = SERVED_FIXTURES.get(module)
    if served and served in metafunc.fixturenames:
        metafunc.parametrize(served, sandbox_server.DIALECTS, indirect=True, scope="module")
    elif (served and serves_in_either_dialect(inspect.getsource(metafunc.function))) or (
        module in DIALECT_UI_MODULES and "ui_app" in metafunc.fixturenames
    ):
        if "sandbox_dialect" not in metafunc.fixturenames:
            metafunc.fixturenames.append("sandbox_dialect")
        metafunc.parametrize("sandbox_dialect", sandbox_server.DIALECTS, indirect=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A served-sandbox fixture parametrized above starts the sandbox in its dialect."""
    param = getattr(request, "param", None)
    if fixturedef.argname in SERVED_FIXTURES.values() and param in sandbox_server.DIALECTS:
        sandbox_server.DIALECT = param
        try:
            yield  # the fixture serves the sandbox now, in that dialect
        finally:
            sandbox_server.DIALECT = "native"  # and no other module's sandbox after it
    else:
        yield


@pytest.fixture(scope="module")
def served_sandbox(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest):
    """The sandbox served once for the module that uses it (a small registry on a fixed
    date: tests/sandbox_server.py), started with the module's ``SERVE_ARGS``."""
    args = getattr(request.module, "SERVE_ARGS", ())
    with sandbox_server.serve(tmp_path_factory.mktemp("served") / "sb.db", *args) as server:
        yield server


@pytest.fixture
def sandbox_dialect(request: pytest.FixtureRequest):
    """The sandbox dialect of this test ("native" unless parametrized): the embedded one
    of ``ui_app`` and any sandbox the test serves itself."""
    dialect = getattr(request, "param", "native")
    sandbox_server.DIALECT = dialect
    yield dialect
    sandbox_server.DIALECT = "native"


@pytest.fixture
def seeded_data(config_file: Path, seeded_sandbox_db: Path) -> None:
    """The embedded sandbox's database in the test's data folder, copied from the
    session's seeded one: each test starts from the same registry, and no test's app
    seeds one of its own on a thread (about a second of CPU beside the test's own)."""
    from tui_app.config import data_dir

    target = data_dir() / "sandbox-42.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, target)


@pytest.fixture
def ui_app(seeded_data: None, sandbox_dialect: str):
    """A factory of ``ProducerApp`` on the embedded sandbox (:func:`seeded_data`), in the
    test's sandbox dialect."""
    from tui_app.config import load_config
    from tui_app.ui.app import ProducerApp

    def make(**kwargs) -> ProducerApp:
        config = load_config()
        for name, env in config.environments.items():
            if env.embedded:
                config.environments[name] = env.model_copy(update={"dialect": sandbox_dialect})
        app = ProducerApp(config, today=UI_TODAY, **kwargs)
        record_notifications(app)
        return app

    return make
