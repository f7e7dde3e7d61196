"""``ProducerApp``: the shell. Areas are Textual modes (each with its own screen stack, so
Esc backs out within an area); the connection to the service opens after the first frame.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterable
from datetime import date
from functools import partial
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from tui_app.client.errors import ClientError
from tui_app.config import Config, ConfigError, Environment, save_config
from tui_app.ui.screens.help import HelpScreen
from tui_app.ui.themes import load_themes

if TYPE_CHECKING:  # the client (httpx, every contract module) loads after the first frame
    from tui_app.client.factory import Connection
    from tui_app.client.registry import RegistryClient

AREAS = {
    "search": ("1", "Search"),
    "orders": ("2", "Orders"),
    "profiles": ("3", "Profiles"),
    "bulk": ("4", "Bulk"),
    "export": ("5", "Export"),
    "settings": ("6", "Settings"),
    "watch": ("7", "Watch"),
}
HEALTH_EVERY = 15.0


def _search_screen() -> Screen:
    from tui_app.ui.screens.search import SearchScreen

    return SearchScreen()


def _orders_screen() -> Screen:
    from tui_app.ui.screens.orders import OrdersScreen

    return OrdersScreen()


def _bulk_screen() -> Screen:
    from tui_app.ui.screens.bulk import BulkScreen

    return BulkScreen()


def _profiles_screen() -> Screen:
    from tui_app.ui.screens.profiles import ProfilesScreen

    return ProfilesScreen()


def _export_screen() -> Screen:
    from tui_app.ui.screens.export import ExportScreen

    return ExportScreen()


def _settings_screen() -> Screen:
    from tui_app.ui.screens.settings import SettingsScreen

    return SettingsScreen()


def _watch_screen() -> Screen:
    from tui_app.ui.screens.watch import WatchScreen

    return WatchScreen()


class ProducerApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "producer-tui"
    MODES = {
        "search": _search_screen,
        "orders": _orders_screen,
        "profiles": _profiles_screen,
        "bulk": _bulk_screen,
        "export": _export_screen,
        "settings": _settings_screen,
        "watch": _watch_screen,
    }
    DEFAULT_MODE = "search"
    BINDINGS = [
        *(
            Binding(key, f"area('{mode}')", name, id=f"area.{mode}", show=False)
            for mode, (key, name) in AREAS.items()
        ),
        Binding("question_mark,f1", "help", "Keys", id="help", key_display="?"),
        Binding("ctrl+r", "toggle_reveal", "Reveal PII", id="reveal", show=False),
        Binding("ctrl+q", "quit", "Quit", id="quit"),
    ]

    service_state: reactive[str] = reactive("… connecting")
    env_name: reactive[str] = reactive("")
    """The environment in use; the status bars follow it."""
    reveal_pii: reactive[bool] = reactive(False)
    """Personal data is masked unless the user reveals it (Ctrl+R), per app session."""

    def __init__(
        self, config: Config, env_name: str | None = None, *, today: date | None = None
    ) -> None:
        super().__init__()
        self.config = config
        name = env_name or config.active
        self.env: Environment = config.environments[name]
        self.env_name = name
        self.fixed_today = today
        self.today = today or self.env.today or date.today()
        """The date licenses are judged against (fixed in tests and screenshots, where the
        embedded sandbox is seeded for the same date)."""
        self.connection: Connection | None = None
        self._connected = asyncio.Event()
        self._connect_error: Exception | None = None
        self.reveal_pii = not config.mask_pii
        # Themes are in place before the first frame, so it is styled once.
        self._theme_problems: list[str] = []
        for theme in load_themes(self._theme_problems.append):
            self.register_theme(theme)
        if config.theme and config.theme in self.available_themes:
            self.theme = config.theme
        elif "producer-dark" in self.available_themes:
            self.theme = "producer-dark"

    # --- start-up ---

    def on_mount(self) -> None:
        for problem in self._theme_problems:
            self.notify_problem(problem)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self._apply_keymap()
        # Nothing touches the network (or the sandbox) before the first frame.
        # A short timer rather than the next refresh: the first frame takes a few refreshes
        # (the footer paints last) and the connection work competes with them for the GIL.
        self.set_timer(0.15, self._after_first_frame)
        self.set_interval(HEALTH_EVERY, self.check_health)

    def _after_first_frame(self) -> None:
        # The CLI turns the garbage collector off while the app starts (it only finds
        # start-up objects that live on); freezing them keeps later collections short.
        gc.enable()
        gc.freeze()
        self.open_connection()

    def _apply_keymap(self) -> None:
        if self.config.keys:
            self.set_keymap(dict(self.config.keys))

    @work(exclusive=True, group="connection")
    async def open_connection(self) -> None:
        self._connected.clear()
        self._connect_error = None
        self.service_state = "… starting the sandbox" if self.env.embedded else "… connecting"
        from tui_app.client.factory import connect

        try:
            self.connection = await connect(self.env, today=self.fixed_today)
        except (ConfigError, ClientError, OSError) as exc:
            self._connect_error = exc
            self.service_state = "○ not connected"
            self.notify(str(exc), title="Cannot connect", severity="error", timeout=10)
        finally:
            self._connected.set()
        if self.connection is not None:
            await self.check_health()

    async def switch_environment(self, name: str, env: Environment) -> None:
        """Use another environment: close the current connection, open the new one."""
        for worker in list(self.workers):
            if worker.group == "connection" and not worker.is_finished:
                await worker.wait()
        self._connected.clear()
        if self.connection is not None:
            connection, self.connection = self.connection, None
            await connection.aclose()
        self.env = env
        self.env_name = name
        self.open_connection()

    async def check_health(self) -> None:
        if self.connection is None:
            return
        try:
            ms = await self.connection.client.ping()
        except ClientError as exc:
            self.service_state = f"○ offline: {exc}"
        else:
            self.service_state = f"● online ({ms:.0f} ms)"

    async def client(self) -> RegistryClient:
        """The service client, once connected; raises a plain-language error if not."""
        await self._connected.wait()
        if self.connection is None:
            raise ClientError(f"not connected: {self._connect_error}")
        return self.connection.client

    async def on_unmount(self) -> None:
        if self.connection is not None:
            await self.connection.aclose()

    # --- actions ---

    def action_area(self, mode: str) -> None:
        self.switch_mode(mode)

    async def new_order(self, values: dict) -> None:
        """Open the Orders area with a form prefilled from ``values``."""
        await self.switch_mode("orders")
        await self.screen.prefill(values)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen.active_bindings))

    def action_toggle_reveal(self) -> None:
        self.reveal_pii = not self.reveal_pii
        self.notify("Personal data shown" if self.reveal_pii else "Personal data masked")

    def notify_problem(self, message: str) -> None:
        self.notify(message, severity="warning", timeout=8)

    def _theme_changed(self, theme) -> None:
        if self.config.theme != theme.name:
            self.config = self.config.model_copy(update={"theme": theme.name})
            self.save_settings()

    def save_settings(self, config: Config | None = None) -> bool:
        try:
            save_config(config or self.config)
        except ConfigError as exc:
            self.notify(str(exc), title="Settings not saved", severity="error")
            return False
        if config is not None:
            self.config = config
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode, (key, name) in AREAS.items():
            yield SystemCommand(
                f"Go to {name}",
                f"Open the {name} area (key {key})",
                partial(self.action_area, mode),
            )
        yield SystemCommand("Show keys", "Every key of this screen (? or F1)", self.action_help)
        yield SystemCommand(
            "Reveal or mask personal data",
            "Toggle SSN, FEIN and birth date display (Ctrl+R)",
            self.action_toggle_reveal,
        )
        commands = getattr(screen, "commands", None)
        if commands is not None:
            yield from commands()
