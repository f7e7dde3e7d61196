"""Start-up (issue 15, item 7): the connection opens right after the first full frame, with
no fixed timer, and a first run is online before the embedded sandbox has seeded its
registry. Figures come from benchmarks/bench_startup.py, never from these tests."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from typing import Any

import pytest
from conftest import UI_TODAY
from textual.widgets import Footer
from ui_support import SIZE, settle

from tui_app.config import load_config
from tui_app.sandbox import registry as registry_module
from tui_app.sandbox.synthetic import DEMO_AGENT_NPN
from tui_app.ui.app import ProducerApp
from tui_app.ui.widgets.keys_footer import FooterKey, KeysFooter


async def test_the_connection_opens_as_soon_as_the_first_full_frame_is_drawn(
    ui_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the footer's keys (the last part of the first frame) are drawn, the next
    refreshes open the connection: no timer to wait out, which the machine's load can
    outrun either way (before the frame is full, or long after it)."""
    footer_keys: list[int] = []
    open_connection = ProducerApp.open_connection

    def recorded(self: ProducerApp) -> Any:
        footer_keys.append(len(self.screen.query_one(Footer).children))
        return open_connection(self)

    monkeypatch.setattr(ProducerApp, "open_connection", recorded)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):  # refreshes; no time passes beyond what they take
            if footer_keys:
                break
            await pilot.pause()
        assert footer_keys and footer_keys[0] > 0  # opened, and after the footer's keys
        assert app.service_state != "… connecting"


async def test_the_first_frame_holds_the_footers_keys(
    ui_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's footer composes empty, waits for the screen's first bindings update and a
    refresh, then composes again with its keys: a second layout and paint before the first
    full frame (about 40 ms of a start). Ours is composed once, with its keys."""
    composed: list[int] = []
    compose = KeysFooter.compose

    def counted(self: KeysFooter) -> Any:
        widgets = list(compose(self))
        composed.append(sum(isinstance(w, FooterKey) for w in widgets))
        return iter(widgets)

    monkeypatch.setattr(KeysFooter, "compose", counted)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert composed[0] > 0  # the first compose has the keys...
        assert len(composed) == 1  # ...and the bindings' update left them as they were
        assert "Edit search" in {str(k.description) for k in app.screen.query(FooterKey)}


async def test_the_client_loads_while_the_first_frame_is_drawn(
    ui_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client's modules (about 80 ms) loaded only once the frame was drawn; drawing it
    leaves the interpreter idle at times, so they load on a thread from the app's mount,
    and the connection finds them loaded. It still opens after the frame."""
    from tui_app.ui import app as app_module

    calls: list[tuple[str, bool]] = []
    import_module = app_module.import_module
    after_first_frame = ProducerApp._after_first_frame
    drawn = threading.Event()

    def recorded(name: str) -> Any:
        if name.startswith("tui_app.client"):  # (the areas' screens load through it too)
            calls.append((threading.current_thread().name, drawn.is_set()))
        return import_module(name)

    def after(self: ProducerApp) -> None:
        drawn.set()
        after_first_frame(self)

    monkeypatch.setattr(app_module, "import_module", recorded)
    monkeypatch.setattr(ProducerApp, "_after_first_frame", after)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.client()
        await settle(app, pilot)
    assert calls[0] == ("client-preload", False)  # before the frame, on its own thread
    assert calls[1][1]  # and the connection's, after it


async def test_a_first_run_is_online_while_the_sandbox_still_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fresh data folder: the sandbox's registry is generated on a thread (held here),
    and the app is online meanwhile; a read waits for the registry and finds it."""
    gate, generate = threading.Event(), registry_module.generate_docs

    def held(seed: int, individuals: int, firms: int, today: Any) -> Any:
        assert gate.wait(10), "the registry's seeding was never let go on"
        yield from generate(seed, 40, 8, today)  # a small registry: the test is not about size

    monkeypatch.setattr(registry_module, "generate_docs", held)
    app = ProducerApp(load_config(), today=UI_TODAY)
    try:
        async with app.run_test(size=SIZE):
            client = await asyncio.wait_for(app.client(), 10)
            await asyncio.wait_for(app.workers.wait_for_complete(), 10)
            assert app.service_state.startswith("● online")
            assert not gate.is_set()
            gate.set()
            record = await client.get_agent(DEMO_AGENT_NPN)
            assert record.NiprFullInfo.Producer.Npn == DEMO_AGENT_NPN
    finally:
        gate.set()


def test_the_embedded_sandbox_runs_without_the_web_framework() -> None:
    """FastAPI (about a sixth of a first run's way to online) serves only the served
    sandbox's OpenAPI document and docs pages; in-process the same routes run on Starlette.
    A fresh interpreter asks the embedded sandbox for an order it does not have: the
    route, its error handler and the one error shape answer, and FastAPI was never
    imported."""
    code = """if True:
        import asyncio, sys
        from tui_app.client.errors import ClientError
        from tui_app.client.factory import connect
        from tui_app.config import Environment

        async def main():
            connection = await connect(Environment(embedded=True))
            try:
                await connection.client.order_status("NO-SUCH-ORDER")
            except ClientError as exc:
                print(exc)
            finally:
                await connection.aclose()
            print("fastapi loaded:", "fastapi" in sys.modules)

        asyncio.run(main())
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "no order with client order number NO-SUCH-ORDER" in out.stdout
    assert out.stdout.splitlines()[-1] == "fastapi loaded: False"


@pytest.mark.parametrize("collector_on", [True, False])
async def test_start_up_objects_are_frozen_only_when_the_cli_held_the_collector(
    ui_app, monkeypatch: pytest.MonkeyPatch, collector_on: bool
) -> None:
    """The CLI turns the garbage collector off until the app is connected (the client's
    and the sandbox's imports, after the first frame, are start-up objects too: it was
    on for them, about 30 ms of the way to online), and the app then freezes what
    start-up left (later collections stay short). An app started with the collector on
    (each test's) freezes nothing: it would keep the garbage of every app before it in
    the process for good."""
    import gc

    from tui_app.ui import app as app_module

    frozen: list[bool] = []
    collecting_at_import: list[bool] = []
    import_module = app_module.import_module

    def imported(name: str) -> Any:
        collecting_at_import.append(gc.isenabled())
        return import_module(name)

    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(app_module, "import_module", imported)
    if not collector_on:
        gc.disable()
    try:
        app = ui_app()
        async with app.run_test(size=SIZE) as pilot:
            await app.client()
            await pilot.pause()
            assert gc.isenabled()
    finally:
        gc.enable()
    assert frozen == ([] if collector_on else [True])
    assert set(collecting_at_import) == {collector_on}  # the preload and the connection


def test_building_the_models_reads_no_source_and_no_package_metadata() -> None:
    """Two costs of every start that bought nothing (about 60 ms of the first frame):
    pydantic's ``use_attribute_docstrings`` read each model's source as its class was
    built (the descriptions are now read when asked for: tui_app.field_docs), and
    pydantic scanned every installed package's metadata for plugins as it built the first
    model. A fresh interpreter runs the CLI's start (its ``config check``) and loads the
    contract and the search screen: neither the source reader nor the metadata scan ran."""
    code = """if True:
        import sys
        import importlib.metadata, inspect, pydantic._internal._docs_extraction as docs
        calls = []
        def spy(name, real):
            def called(*args, **kwargs):
                calls.append(name)
                return real(*args, **kwargs)
            return called
        importlib.metadata.entry_points = spy("entry_points", importlib.metadata.entry_points)
        docs.extract_docstrings_from_cls = spy("docstrings", docs.extract_docstrings_from_cls)
        from tui_app.cli import main
        main(["config", "check"])
        import tui_app.contract.bulk, tui_app.contract.order, tui_app.contract.profile
        import tui_app.ui.screens.search
        print("calls:", sorted(set(calls)))
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "calls: []"
