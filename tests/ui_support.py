"""What the Pilot tests share."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from textual.app import App
from textual.widget import Widget
from textual.worker import WorkerCancelled

SIZE = (120, 40)


async def settle(app, pilot) -> None:
    """Let the app finish what the last key started: messages, then workers. A worker
    cancelled meanwhile (an exclusive one replaced by a newer, as a periodic refresh is)
    is not a failure: wait for the rest."""
    await pilot.pause()
    for _ in range(10):
        try:
            await app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            await pilot.pause()
    await pilot.pause()


@dataclass(frozen=True)
class Note:
    message: str
    title: str
    severity: str


_SHOWN: WeakKeyDictionary[App, list[Note]] = WeakKeyDictionary()


def record_notifications(app: App) -> None:
    """Keep every notification ``app`` shows from now on (Textual keeps only those still
    on screen, in a private attribute); :func:`shown` returns them."""
    notes = _SHOWN.setdefault(app, [])
    show = app.notify

    def notify(message, *, title="", severity="information", **options):
        notes.append(Note(str(message), title, severity))
        show(message, title=title, severity=severity, **options)

    app.notify = notify  # type: ignore[method-assign]


def shown(app: App) -> list[Note]:
    """The notifications ``app`` has shown, in order (apps made by ``ui_app`` record them)."""
    return _SHOWN[app]


async def until_connected(app, pilot, seconds: float = 15.0) -> None:
    """Wait until the app has connected (or failed to): the connection opens a few
    refreshes after the first frame, so a test that looks at it right after start may
    find no worker yet to wait for (CI once saw "… starting the sandbox")."""
    for _ in range(int(seconds / 0.02)):
        if not app.service_state.startswith("…"):
            break
        await pilot.pause(0.02)
    await settle(app, pilot)


async def wait_for(pilot, condition, what: str, seconds: float = 15.0) -> None:
    """Wait until ``condition()`` holds (e.g. a dialog a worker is about to push): never
    :func:`settle` then, which would wait for that worker to end."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


async def open_demo_agent(app, pilot) -> None:
    """From a fresh app's Search area, the demo agent's record (NPN 19000001), loaded."""
    await settle(app, pilot)
    app.screen.open_record("agent", 19000001)
    await settle(app, pilot)


async def quit_asks(app: App, pilot, words: str) -> None:
    """Press Ctrl+Q and check that the app asks first, saying ``words``."""
    from textual.widgets import Static

    from tui_app.ui.screens.dialogs import ConfirmScreen

    await pilot.press("ctrl+q")
    await pilot.pause()
    assert isinstance(app.screen, ConfirmScreen)
    assert words in str(app.screen.query_one(".dialog-text", Static).render())


def sql_on_the_loop(monkeypatch, database: str) -> list[str]:
    """Every SQL statement run on the event loop's thread (the main one) from now on,
    through a connection to a file whose name ends with ``database``."""
    import sqlite3
    import threading

    on_loop: list[str] = []
    connect = sqlite3.connect

    def traced(path, *args, **kwargs):
        conn = connect(path, *args, **kwargs)
        if str(path).endswith(database):
            conn.set_trace_callback(
                lambda sql: (
                    on_loop.append(sql)
                    if threading.current_thread() is threading.main_thread()
                    else None
                )
            )
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    return on_loop


def layouts_asked(widget: Widget) -> list[bool]:
    """Every ``refresh`` of ``widget`` from now on, as whether it asked for a layout."""
    asked: list[bool] = []
    refresh = widget.refresh

    def counted(*regions, layout: bool = False, **kwargs):
        asked.append(layout)
        return refresh(*regions, layout=layout, **kwargs)

    widget.refresh = counted  # type: ignore[method-assign]
    return asked
