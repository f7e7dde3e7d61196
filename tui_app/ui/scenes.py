"""Scenes: scripted walks to each screen of the app, for screenshots and snapshot tests.

Each scene drives a running app with a Pilot. ``producer-tui screenshots`` saves one SVG
per scene into ``screenshots/``; the snapshot tests compare the same scenes. Both run on the
embedded sandbox with a fixed seed and date, so the pictures only change when the app does.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Collapsible, Input, TextArea
from textual.worker import WorkerCancelled, WorkerState

from tui_app.ui.app import ProducerApp
from tui_app.ui.screens.bulk import BulkScreen
from tui_app.ui.screens.profiles import ProfilesScreen
from tui_app.ui.screens.search import SearchScreen
from tui_app.ui.screens.watch import WatchScreen
from tui_app.ui.typed_app import screen_as

SCENE_DAY = date(2026, 11, 21)
SIZE = (120, 40)

Scene = Callable[[Pilot], Awaitable[None]]


def producer_app(pilot: Pilot) -> ProducerApp:
    app = pilot.app
    if not isinstance(app, ProducerApp):
        raise TypeError(f"scenes drive a ProducerApp, not {type(app).__name__}")
    return app


async def settle(pilot: Pilot) -> None:
    """Wait for the app's work to finish; hide what changes from run to run (the live
    latency figure, a blinking cursor)."""
    app = producer_app(pilot)
    await pilot.pause()
    await app.client()  # the connection opens shortly after the first frame
    for _ in range(10):  # a periodic refresh replaced by a newer one is no failure
        try:
            await app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            await pilot.pause()
    await pilot.pause()
    # A slow run must not meet the periodic health check: it would write the latency.
    app.health_timer.pause()
    app.service_state = "● online"
    for widget in [*app.screen.query(Input), *app.screen.query(TextArea)]:
        widget.cursor_blink = False
    # Focus moved to a field scrolls it into view with an animation: the picture is of
    # where it ends, not of a frame on the way.
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def search_form(pilot: Pilot) -> None:
    await settle(pilot)


async def search_errors(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.click("#f-FirstName")
    await pilot.press(*"Avery-Quinn-Sample-" * 5)
    await pilot.click("#run-search")
    await settle(pilot)


async def search_results(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.click("#f-FirstName")
    await pilot.press("a")
    await pilot.click("#f-LastName")
    await pilot.press("s", "enter")
    await settle(pilot)


async def agency_results(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.click("#kind-agency")
    await pilot.click("#f-FirmName")
    await pilot.press(*"sample")
    await pilot.click("#f-FirmFein")
    await pilot.press(*"00", "enter")
    await settle(pilot)


async def _demo_record(pilot: Pilot, *tabs: str) -> None:
    await settle(pilot)
    screen_as(pilot.app, SearchScreen).open_record("agent", 19000001)
    await settle(pilot)
    if tabs:
        await pilot.press(*tabs)
        await settle(pilot)


async def record_overview(pilot: Pilot) -> None:
    await _demo_record(pilot)


async def record_licenses(pilot: Pilot) -> None:
    await _demo_record(pilot, "l", "l")


async def record_appointments(pilot: Pilot) -> None:
    await _demo_record(pilot, "l", "l", "l", "l")


async def help_keys(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("f4", "question_mark")
    await settle(pilot)


async def settings(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("f4", "6")
    await settle(pilot)


async def orders(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("f4", "2")
    await settle(pilot)


async def orders_errors(pilot: Pilot) -> None:
    """The order form refusing to submit: a bad state code, a short tax id and the
    sponsoringCompany rule on the two fields it names."""
    await orders(pilot)
    screen = pilot.app.screen
    for path, value in (
        ("tlq.juris", "CAL"),
        ("tlq.clientOrderNum", "A-1"),
        ("data.firstName", "Avery"),
        ("data.lastName", "Sample"),
        ("data.taxId", "1234"),
        ("data.sponsoringCompany", "Acme Life"),
    ):
        screen.query_one("#f-" + path.replace(".", "--"), Input).value = value
    await pilot.press("f5")
    await settle(pilot)


DEMO_AGENT = {
    "ProfileKey": "AQS-1001",
    "Ssn": "000121234",
    "BusinessAddress": {
        "StreetAddress1": "100 Market St", "City": "San Francisco", "State": "CA",
        "Zip": "94105", "DynamicData": {"Branch": "West", "Desk": "7"},
    },
    "MailingAddress": {
        "StreetAddress1": "PO Box 19", "City": "Oakland", "State": "CA", "Zip": "94601",
    },
    "Contact": {"BusinessEmailAddress": "avery.sample@example.test",
                "BusinessPhoneNumber": "4155550100"},
    "CurrentEmployment": {"EmployerName": "Sample Mutual", "JobTitle": "Producer",
                          "HireDate": "2019-04-01T00:00:00"},
    "Demographic": {
        "EmpStatus": "7040", "FirstName": "Avery", "MiddleInitial": "Q", "LastName": "Sample",
        "DateOfBirth": "1985-02-14T00:00:00", "NiprNumber": "19000001", "ResidentState": "CA",
    },
    "Hierarchy": {"HierarchyCode": "W-7", "Manager1": "Jordan Doe"},
}  # fmt: skip
"""An agent profile as its XML import carries it: the demo producer (NPN 19000001), so its
export joins the registry's licenses and appointments."""


async def profiles(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("f4", "3")
    await settle(pilot)
    screen = screen_as(pilot.app, ProfilesScreen)
    await screen.show_profile("agent", DEMO_AGENT)
    screen.query_one("#f-Demographic-group", Collapsible).collapsed = False
    await pilot.press("f4")
    await settle(pilot)
    screen.query_one("#profile-form").scroll_home(animate=False)
    await settle(pilot)


async def export(pilot: Pilot) -> None:
    await settle(pilot)
    await (await producer_app(pilot).client()).import_agent(DEMO_AGENT)
    await pilot.press("f4", "5")
    await settle(pilot)
    await pilot.click("#export-key")
    await pilot.press(*DEMO_AGENT["ProfileKey"], "enter")
    await settle(pilot)
    await pilot.press("f4", "down", "enter", "down")
    await settle(pilot)


def _bulk_demo_lines() -> list[str]:
    """An import file as users send them: mostly good records, a few they must fix."""
    import json

    def agent(n: int, first: str, last: str, city: str = "Austin", address: bool = True):
        record = {
            "profileKey": f"BLK-{n:03d}", "ssn": f"9{n:08d}",
            "demographic": {"empStatus": "7040", "firstName": first, "lastName": last},
        }  # fmt: skip
        if address:
            record["businessAddress"] = {
                "streetAddress1": f"{n} Main St", "city": city, "state": "TX", "zip": "73301",
            }  # fmt: skip
        return json.dumps(record)

    return [
        agent(1, "Ada", "Lane"),
        agent(2, "Ben", "Okafor", "Dallas"),
        json.dumps({"profileKey": "BLK-003", "ssn": "12"}),
        agent(4, "Chen", "Wu", "Houston"),
        '{"profileKey": "BLK-005", ssn: 900000005}',  # not JSON: a key without quotes
        agent(6, "Dana", "Reyes", address=False),  # valid, but a new profile needs an address
        agent(7, "Eli", "Moss", "El Paso"),
        agent(8, "Fay", "Ngata"),
    ]


async def bulk(pilot: Pilot) -> None:
    """A file checked (its invalid lines named by number), submitted and done. The job's id
    and times are fixed here, so the picture does not change from run to run."""
    from types import SimpleNamespace
    from unittest.mock import patch

    from tui_app.bulk import journal
    from tui_app.config import data_dir

    folder = data_dir() / "bulk-demo"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agents-2026-11.ndjson"
    path.write_text("\n".join(_bulk_demo_lines()) + "\n", encoding="utf-8")
    fixed_id = SimpleNamespace(token_hex=lambda _: "5ce7e0a1")
    with (
        patch.object(journal, "secrets", fixed_id),
        patch.object(journal, "_now", lambda: f"{SCENE_DAY.isoformat()}T09:30:00+00:00"),
    ):
        await settle(pilot)
        await pilot.press("f4", "4")
        await settle(pilot)
        await pilot.press("f2")
        pilot.app.screen.query_one("#bulk-path", Input).value = str(path)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        screen = screen_as(pilot.app, BulkScreen)
        for _ in range(1200):  # the job's worker runs it: wait until the table says done
            if any(s.job.state == "DONE" and not s.running for s in screen.seen.values()):
                break
            await asyncio.sleep(0.05)
            await pilot.pause()
        await settle(pilot)
    pilot.app.clear_notifications()
    await settle(pilot)


async def settle_chain(pilot: Pilot) -> None:
    """:func:`settle`, again while work finishing starts more (the demo roster's worker
    adds the roster in another; a check ends by reloading the views in another)."""
    for _ in range(10):
        await settle(pilot)
        if not any(
            w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers
        ):
            return


async def watch(pilot: Pilot) -> None:
    """The sandbox's demo roster checked twice, a month apart by the sandbox's clock, so
    the bars and the findings show what changed; the cursor on an appointment finding.
    Each step waits for the last one's work: the second F5 would otherwise carry on a
    first check still running, and the findings would depend on the machine's load."""
    from datetime import timedelta

    await settle(pilot)
    await pilot.press("7")
    await settle(pilot)
    await pilot.press("f7")
    await settle_chain(pilot)
    await pilot.press("f5")
    await settle_chain(pilot)
    later = SCENE_DAY + timedelta(days=30)
    app = producer_app(pilot)
    assert app.connection is not None and app.connection.sandbox is not None
    app.connection.sandbox.registry.as_of = later
    app.fixed_today = later
    await pilot.press("f5")
    await settle_chain(pilot)
    await screen_as(app, WatchScreen).findings.wait_loaded()
    await pilot.press("down", "down", "down", "down", "down", "down")
    pilot.app.clear_notifications()
    await settle(pilot)


SCENES: dict[str, Scene] = {
    "search-form": search_form,
    "search-errors": search_errors,
    "search-results": search_results,
    "search-agencies": agency_results,
    "record-overview": record_overview,
    "record-licenses": record_licenses,
    "record-appointments": record_appointments,
    "help": help_keys,
    "settings": settings,
    "orders": orders,
    "orders-errors": orders_errors,
    "profiles": profiles,
    "export": export,
    "bulk": bulk,
    "watch": watch,
}


async def save_screenshots(out: Path, names: list[str] | None = None) -> list[Path]:
    """Run each scene in a fresh app on a private sandbox and save it as ``out/NAME.svg``.
    The user's own config and data are never touched."""
    from tui_app.config import default_config
    from tui_app.ui.app import ProducerApp

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="producer-tui-shots-") as tmp:
        old = {
            k: os.environ.get(k) for k in ("PRODUCER_TUI_CONFIG", "PRODUCER_TUI_DATA", "COLORTERM")
        }
        os.environ["PRODUCER_TUI_CONFIG"] = str(Path(tmp) / "config.toml")
        os.environ["PRODUCER_TUI_DATA"] = str(Path(tmp) / "data")
        # The pictures show the default theme, whatever terminal runs the command.
        os.environ["COLORTERM"] = "truecolor"
        try:
            for name in names or list(SCENES):
                app = ProducerApp(default_config(), today=SCENE_DAY)
                async with app.run_test(size=SIZE) as pilot:
                    await SCENES[name](pilot)
                    saved.append(Path(app.save_screenshot(f"{name}.svg", str(out))))
        finally:
            for key, value in old.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            shutil.rmtree(tmp, ignore_errors=True)
    return saved
