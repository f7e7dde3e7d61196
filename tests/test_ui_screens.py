"""What every screen of the app does (``ProducerScreen``): styled once as it mounts (issue
15: opening an area was most of a Pilot test's time), a theme chosen while an area is away
still shows when it comes back, and a screen's work stops before its widgets go."""

from __future__ import annotations

import asyncio

import pytest
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Collapsible, Footer, Input, Select
from textual.widgets._footer import FooterKey  # not exported; Textual is pinned
from ui_support import SIZE, open_demo_agent, settle

from tui_app.ui.widgets.status_bar import StatusBar


async def open_area(app, pilot, area: str) -> None:
    """Start up, then open ``area`` and let it settle."""
    await settle(app, pilot)
    await app.switch_mode(area)
    await settle(app, pilot)


async def test_a_first_visit_styles_the_area_once(ui_app, monkeypatch):
    reparsed: list[Stylesheet] = []
    restyled: list[Screen] = []
    reparse, restyle = Stylesheet.reparse, Screen.update_node_styles

    def count_reparse(self: Stylesheet) -> None:
        reparsed.append(self)
        reparse(self)

    def count_restyle(self: Screen, animate: bool = True) -> None:
        restyled.append(self)
        restyle(self, animate)

    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        monkeypatch.setattr(Stylesheet, "reparse", count_reparse)
        monkeypatch.setattr(Screen, "update_node_styles", count_restyle)
        await app.switch_mode("orders")
        await settle(app, pilot)
        assert app.screen.query(Input)  # the area is built...
        # ...and styled as it mounted, nothing more (before: 2 re-parses, 2 restyles).
        assert reparsed == []
        assert restyled == []


def styles_of(screen: Screen) -> dict[str, tuple]:
    return {
        str(widget.id): (widget.rich_style.color, widget.rich_style.bgcolor)
        for widget in screen.query(Input)
        if widget.id
    }


async def test_a_theme_chosen_while_an_area_is_away_shows_on_its_return(ui_app):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_area(app, pilot, "orders")
        orders = app.screen
        before = styles_of(orders)
        await app.switch_mode("search")
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await open_area(app, pilot, "orders")
        shown = styles_of(orders)
        assert shown != before  # the theme changes the fields' colours...
        orders.update_node_styles(animate=False)
        assert styles_of(orders) == shown  # ...and they were current already on return


@pytest.mark.parametrize("area", ["search", "orders", "bulk", "profiles", "export", "settings"])
async def test_closing_the_app_stops_a_screens_work_before_its_widgets_go(ui_app, area):
    # A worker that wakes while the app closes found its widgets removed and raised
    # NoMatches (seen in the Bulk and Orders areas' refreshes, issue 15): one area after
    # another, the same race. Now every screen cancels its workers first.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode(area)
        await settle(app, pilot)
        screen = app.screen
        bar = screen.query_one(StatusBar)

        async def refresh_late() -> None:
            while bar.is_attached:  # the closing app removes the area's widgets...
                await asyncio.sleep(0)
            screen.query_one(StatusBar)  # ...and a worker still running finds none

        screen.run_worker(refresh_late())
    # Leaving the block closed the app; a worker's error would have been raised here.
    assert not app.return_code


def footer_keys(screen: Screen) -> list[Widget]:
    return list(screen.query_one(Footer).query("FooterKey"))


async def test_the_footer_is_rebuilt_only_when_its_keys_change(ui_app):
    # Textual rebuilt the footer, a new widget per key, on every move of the focus: the
    # most of a Tab's cost in a form (issue 15). Now only when the keys differ.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_area(app, pilot, "profiles")
        screen = app.screen
        before = footer_keys(screen)
        assert before and "Add contact" not in " ".join(str(key.render()) for key in before)
        for _ in range(3):
            focused = screen.focused
            await pilot.press("tab")
            await settle(app, pilot)
            assert screen.focused is not focused  # the focus moved...
            assert footer_keys(screen) == before  # ...and the same keys stayed
        screen.query_one("#profile-kind", Select).value = "agency"  # agencies have contacts
        await settle(app, pilot)
        after = footer_keys(screen)
        assert "Add contact" in " ".join(str(key.render()) for key in after)
        assert not set(after) & set(before)


async def test_a_focus_move_restyles_only_what_it_changes(ui_app, monkeypatch):
    # Textual restyled the whole of the outermost group around either field (every
    # Collapsible has a `:focus-within` tint) on every focus move: the order form, some
    # 70 ms a Tab (issue 15). Now only a group entered or left is, with what it holds.
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_area(app, pilot, "orders")
        groups = [
            group
            for group in app.screen.query(Collapsible)
            if not group.collapsed and len(group.query(Input)) >= 2
        ]
        one, other = groups[0], groups[-1]
        assert one is not other and other not in one.ancestors and one not in other.ancestors
        first, second = one.query(Input)[:2]
        restyled: list[DOMNode] = []
        update_nodes = app.stylesheet.update_nodes

        def counted(nodes, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(nodes)
            update_nodes(nodes, animate=animate)

        monkeypatch.setattr(app.stylesheet, "update_nodes", counted)
        first.focus()
        await settle(app, pilot)
        assert one.styles.background_tint.a > 0  # the group holding the focus is tinted
        restyled.clear()
        second.focus()  # within the group
        await settle(app, pilot)
        assert app.screen.focused is second
        assert len(restyled) < len(list(one.walk_children())) / 2, len(restyled)
        other.query(Input).first().focus()  # to another group: both look different
        await settle(app, pilot)
        assert one.styles.background_tint.a == 0
        assert other.styles.background_tint.a > 0


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_dialogs_question_wraps_whole(ui_app, size):
    """Seen: a path prompt's and the secret prompt's question cut at the dialog's edge
    ("... the lines to fix go to failed.ndjson be"), at any width."""
    from tui_app.ui.screens.dialogs import PathScreen, SecretScreen

    question = "Save the report as (CSV; the lines to fix go to failed.ndjson beside it) " * 2
    app = ui_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for dialog in (PathScreen(question.strip()), SecretScreen(question.strip())):
            app.push_screen(dialog)
            await pilot.pause()
            text = app.screen.query_one(".dialog-text")
            assert text.region.right <= app.screen.query_one(".dialog").content_region.right
            lines = [strip.text.strip() for strip in text.render_lines(text.region.reset_offset)]
            assert " ".join(line for line in lines if line) == question.strip()
            app.pop_screen()
            await pilot.pause()


AREAS = ("search", "orders", "profiles", "bulk", "export", "settings", "watch")


async def each_area_resized(app, pilot, sizes):
    """Open each area in turn and resize the terminal to each of ``sizes``: (area, size)
    after each resize."""
    await settle(app, pilot)
    for mode in AREAS:
        await app.switch_mode(mode)
        await settle(app, pilot)
        for size in sizes:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            yield mode, size


async def test_every_area_survives_a_terminal_shrunk_to_almost_nothing(ui_app):
    """Seen: Settings ended the app when a terminal went from 50 to 20 columns (its list
    of environments, narrowed to nothing, could not wrap its names)."""
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        async for mode, _ in each_area_resized(app, pilot, ((50, 15), (20, 6), (5, 3), (80, 24))):
            assert app.current_mode == mode and app.is_running


async def test_a_footer_too_narrow_for_its_keys_leaves_keys_out_whole(ui_app):
    """QA at 80 columns: Bulk's footer ended "f7 S", Orders' "f9 Tracki"; keys that do not
    fit are left out whole (``?`` lists them all), and come back when there is room."""
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sizes = [(width, 24) for width in (80, 120, 60, 80)]
        async for mode, (width, _) in each_area_resized(app, pilot, sizes):
            footer = app.screen.query_one(Footer)
            keys = [k for k in footer.query(FooterKey) if not k.has_class("-command-palette")]
            shown = [k for k in keys if k.display]
            palette = footer.query_one(".-command-palette").region
            assert shown[0].key_display == "?", mode
            for key in shown:  # each drawn whole, left of the palette's key
                text = f"{key.key_display} {key.description}"
                assert key.region.right <= palette.x, (mode, width, text)
                assert text in str(key.render()), (mode, width, text)
            if width == 120:
                assert shown == keys, mode


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_long_offline_reason_leaves_the_environment_name_whole(ui_app, size):
    """Seen: "env: stag ○ offline: cannot reach registry.example.test:443 …"."""
    app = ui_app()
    async with app.run_test(size=size) as pilot:
        await open_demo_agent(app, pilot)  # QA: "Search › Record  env: ○ offline: …"
        app.env_name = "staging"
        app.service_state = "○ offline: cannot reach registry.example.test:443 " + "x" * 80
        for mode in ("record", "settings"):  # QA, at 80 columns: "env: stagin" in Settings
            if mode == "settings":
                await app.switch_mode(mode)
                await settle(app, pilot)
            await pilot.pause()
            bar = app.screen.query_one(StatusBar)
            name = bar.query_one("#env-name")
            state = bar.query_one("#service-state").region
            assert name.region.right <= state.x and state.right <= size[0]
            assert name.region.width == len("env: staging") + 2  # whole, with its padding


def test_a_crash_prints_no_personal_data_and_exits_1(config_file, monkeypatch, capsys):
    """Seen (QA): a crash printed the traceback with each frame's variables, the order
    being filed among them (its SSN and birth date in the terminal's scrollback), and the
    command then exited 0."""
    from tui_app.cli import main
    from tui_app.ui.app import ProducerApp

    def crash(self) -> None:
        taxId = "000" + "121234"  # noqa: F841 - a local, as a worker's order would be
        raise RuntimeError("a bug")

    monkeypatch.setattr(ProducerApp, "_after_first_frame", crash)
    run = ProducerApp.run
    monkeypatch.setattr(ProducerApp, "run", lambda self: run(self, headless=True))
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: a bug" in err
    assert "000121234" not in err
