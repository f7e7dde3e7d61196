"""``ProducerApp``: the shell. Areas are Textual modes (each with its own screen stack, so
Esc backs out within an area); the connection to the service opens after the first frame.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import threading
from collections.abc import Callable, Collection, Iterable
from contextlib import suppress
from datetime import date
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING

from textual import work
from textual.actions import parse as parse_action
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen

from tui_app.client.errors import ClientError
from tui_app.config import (
    Config,
    ConfigError,
    Environment,
    commented_copy,
    config_path,
    has_comments,
    save_change,
)
from tui_app.ui import shown_text
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.help import HelpScreen
from tui_app.ui.themes import load_themes
from tui_app.ui.typed_app import screen_as

if TYPE_CHECKING:  # the client (httpx, every contract module) loads after the first frame
    from textual.widget import AwaitMount

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
ANSI_THEMES = {True: "ansi-dark", False: "ansi-light"}
"""Textual's themes in the terminal's own 16 colours, by darkness."""


def limited_colours(color_system: str | None) -> bool:
    """Whether the terminal shows 16 colours or fewer (Rich's reading of TERM and
    COLORTERM): blended RGB shades collapse there, so hints vanish into their background."""
    return color_system not in ("256", "truecolor")


def _area_screen(mode: str) -> Callable[[], Screen]:
    """An area's screen maker: its module (``tui_app.ui.screens.<mode>``, screen class
    ``<Name>Screen``) is imported on the area's first visit, so only Search's is loaded
    before the first frame."""

    def make() -> Screen:
        module = import_module(f"tui_app.ui.screens.{mode}")
        return getattr(module, f"{AREAS[mode][1]}Screen")()

    return make


def _preload_client() -> None:
    # A failure is the connection's to report, as it imports the module itself.
    with suppress(Exception):
        import_module("tui_app.client.factory")


class ProducerApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "producer-tui"
    MODES = {mode: _area_screen(mode) for mode in AREAS}
    DEFAULT_MODE = "search"
    # Screens get the class -narrow below 100 columns: side panels stack (app.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = [
        *(
            Binding(key, f"area('{mode}')", name, id=f"area.{mode}", show=False)
            for mode, (key, name) in AREAS.items()
        ),
        # Shown by each screen's footer first (HELP_KEY), where a narrow one cannot cut it.
        Binding("question_mark,f1", "help", "Keys", id="help", key_display="?", show=False),
        Binding("ctrl+r", "toggle_reveal", "Reveal PII", id="reveal", show=False),
        Binding("ctrl+q", "quit", "Quit", id="quit"),
        # Keys that move the focus act as they arrive (priority), so keys typed with them
        # (together over SSH: "Kim<Tab>Lee") follow the focus, instead of going to the
        # widget that had it when they arrived. Esc likewise: see AreaScreen.
        Binding("tab", "next_field", "Next field", id="focus.next", show=False, priority=True),
        Binding(
            "shift+tab",
            "focus_previous",
            "Previous field",
            id="focus.previous",
            show=False,
            priority=True,
        ),
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
        shown_text.install()
        self.config = config
        name = env_name or config.active
        self.env: Environment = config.environments[name]
        self.env_name = name
        self.fixed_today = today
        """A date fixed for tests and screenshots, where the sandbox is seeded for it."""
        self.connection: Connection | None = None
        self._connected = asyncio.Event()
        self._connect_error: Exception | None = None
        self.reveal_pii = not config.mask_pii
        self.areas: list[AreaScreen] = []
        """The areas opened so far (each registers as it is made)."""
        # Themes are in place before the first frame, so it is styled once.
        self._theme_problems: list[str] = []
        for theme in load_themes(self._theme_problems.append):
            self.register_theme(theme)
        self._set_start_theme(self._start_theme(config.theme))

    @property
    def today(self) -> date:
        """The date licenses are judged against: the fixed one, else the environment's
        (a sandbox's setting), else the calendar's, read each time (an app left open
        past midnight, an environment switched)."""
        return self.fixed_today or self.env.today or date.today()

    def _set_start_theme(self, name: str) -> None:
        """What setting ``theme`` does, less its watcher's refresh: that parses the whole
        stylesheet again (some 20 ms of the first frame), but the stylesheet is yet to be
        parsed at all, and its first parse reads the variables set here. Nor is the
        change published: the theme in use at start is not a user's choice to save."""
        self.set_reactive(App.theme, name)
        dark = self.current_theme.dark
        self.update_classes(
            {f"-theme-{name}": True, "-dark-mode": dark, "-light-mode": not dark}, update=False
        )
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())

    def _start_theme(self, chosen: str | None) -> str:
        """The configured theme, unless the terminal has too few colours for it: then the
        ansi theme of the same darkness (an ansi theme can also be chosen outright)."""
        name = chosen if chosen in self.available_themes else "producer-dark"
        if name in ANSI_THEMES.values() or not limited_colours(self.console.color_system):
            return name
        theme = self.get_theme(name)
        return ANSI_THEMES[theme.dark if theme is not None else True]

    # --- start-up ---

    def on_mount(self) -> None:
        for problem in self._theme_problems:
            self.notify_problem(problem)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self._apply_keymap()
        # Nothing touches the network (or the sandbox) before the first frame: the
        # connection's work would compete with its drawing for the GIL. The footer is
        # drawn with its keys (KeysFooter), so the first refresh is the full frame.
        self.call_after_refresh(self._after_first_frame)
        # The client's modules load now, on a thread: drawing the first frame leaves the
        # interpreter idle at times (the terminal, the refresh timer), and the connection
        # then finds them loaded (online about 30 ms sooner; the frame no later, measured).
        threading.Thread(target=_preload_client, name="client-preload", daemon=True).start()
        self.health_timer = self.set_interval(HEALTH_EVERY, self.check_health)

    def _after_first_frame(self) -> None:
        self.open_connection()
        if self.config.keys or self.config.theme:  # else nothing to look up
            from tui_app.ui.config_problems import config_problems

            for problem in config_problems(self.config, self.available_themes):
                self.notify_problem(problem)

    def _apply_keymap(self) -> None:
        if self.config.keys:
            self.set_keymap(dict(self.config.keys))

    @work(exclusive=True, group="connection")
    async def open_connection(self) -> None:
        self._connected.clear()
        self._connect_error = None
        self.service_state = "… starting the sandbox" if self.env.embedded else "… connecting"
        # The client and the contract load on a thread, so the loop keeps drawing.
        factory = await asyncio.to_thread(import_module, "tui_app.client.factory")
        try:
            await self._ask_missing_secret()
            self.connection = await factory.connect(self.env, today=self.fixed_today)
        except (ConfigError, ClientError, OSError) as exc:
            self._connect_error = exc
            self.service_state = "○ not connected"
            self.notify(str(exc), title="Cannot connect", severity="error", timeout=10)
        finally:
            self._connected.set()
            self._start_collecting()
        if self.connection is not None:
            await self.check_health()

    @staticmethod
    def _start_collecting() -> None:
        """The CLI turns the garbage collector off while the app starts, the client's and
        the sandbox's imports included: it would only find objects that live on (about 30
        ms of the way to online). Freezing them keeps later collections short. Only then:
        an app started with the collector on (a test, one of many in a process) would
        freeze the garbage of every app before it for good."""
        if not gc.isenabled():
            gc.enable()
            gc.freeze()

    async def _ask_missing_secret(self) -> None:
        """A secret variable unset at start need not mean a restart: the user may type the
        secret, masked, for this run. It goes into this process's environment, where the
        config reads it (and a bulk worker started from here finds it), never into a file."""
        name = self.env.auth.secret_env
        if self.env.embedded or name is None:
            return
        try:
            self.env.auth.secret()
        except ConfigError as exc:
            from tui_app.ui.screens.dialogs import SecretScreen

            self._start_collecting()  # not off while the user types
            value = await self.push_screen_wait(
                SecretScreen(
                    f"{exc}. Type the {self.env.auth.type} secret of environment "
                    f"{self.env_name} to connect now:"
                )
            )
            if value:
                os.environ[name] = value

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

    async def action_quit(self) -> None:
        """Quit, asking first if an area holds changes that quitting would lose."""
        unsaved = [note for area in self.areas if (note := area.unsaved())]
        if not unsaved:
            self.exit()
            return
        from tui_app.ui.screens.dialogs import ConfirmScreen

        question = "; ".join(unsaved).capitalize() + ". Quit anyway, losing them?"

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmScreen(question, yes="Quit"), answered)

    def action_next_field(self) -> None:
        """Tab: the focused widget's if it takes it (a path field completes the name shown),
        else on to the next field."""
        take_tab = getattr(self.focused, "take_tab", None)
        if not (take_tab and take_tab()):
            self.screen.focus_next()

    async def new_order(self, values: dict) -> None:
        """Open the Orders area with a form prefilled from ``values``."""
        from tui_app.ui.screens.orders import OrdersScreen  # loaded with its area

        await self.switch_mode("orders")
        screen_as(self, OrdersScreen).prefill_asking(values)  # asks before losing a draft

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen.active_bindings))

    def switch_mode(self, mode: str) -> AwaitMount:
        """Switch areas. A reveal of personal data covers the area it was asked in: the
        next area opens masked as the config says (QA: a record revealed, then 5, showed
        another person's SSN in Export, the record still open behind)."""
        if mode != self.current_mode:
            self.reveal_pii = not self.config.mask_pii
        return super().switch_mode(mode)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "toggle_reveal" or self._can_reveal(self.screen)

    def _can_reveal(self, screen: Screen) -> bool:
        """Not where there is nothing to reveal (a record that could not be read)."""
        return screen.check_action("reveal", (not self.reveal_pii,)) is not False

    def action_toggle_reveal(self) -> None:
        self.reveal_pii = not self.reveal_pii
        if not self.reveal_pii:
            self.notify("Personal data masked")
        elif note := getattr(self.screen, "REVEAL_NOTE", ""):  # an area's (not a dialog's)
            self.notify(f"Personal data shown: {note}")
        else:
            self.notify("Personal data shown")

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """As Textual's, but plain text unless asked: messages carry paths, names and the
        service's words, to be shown as they are (as markup, ``[/x]`` ended the app)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def _fatal_error(self) -> None:
        """Textual's, less the variables of each frame, which it prints: they hold what
        the user typed and the service sent (an order's SSN and birth date were on the
        terminal, and in its scrollback, after a crash)."""
        import rich
        from rich.segment import Segments
        from rich.traceback import Traceback

        self.bell()
        traceback = Traceback(show_locals=False, width=None, suppress=[rich])
        self._exit_renderables.append(
            Segments(self.console.render(traceback, self.console.options))
        )
        self._close_messages_no_wait()

    def notify_problem(self, message: str) -> None:
        self.notify(message, severity="warning", timeout=8)

    def _theme_changed(self, theme) -> None:
        if self.config.theme != theme.name:
            self.save_settings(self.config.model_copy(update={"theme": theme.name}))

    def write_config(
        self,
        config: Config,
        base: Config | None = None,
        *,
        overwrite: bool = False,
        renamed: Collection[str] = (),
    ) -> Config:
        """Write ``config``, a change of ``base`` (by default the app's config), keeping
        what was changed in the file since (:func:`save_change`, ``renamed`` as there);
        what was written becomes the app's config. Raises ConfigError."""
        path = config_path()
        commented = has_comments(path)
        self.config = save_change(base or self.config, config, overwrite=overwrite, renamed=renamed)
        if commented:
            self.notify(
                f"{path.name} held comments, which a saved config cannot keep: the file as"
                f" it was is {commented_copy(path)}",
                title="Comments kept aside",
                severity="warning",
                timeout=15,
            )
        return self.config

    def save_settings(self, config: Config) -> bool:
        """Save a preference the user just chose (theme, masking): it wins over the same
        setting changed in the file since, as the latest choice; nothing else is touched."""
        try:
            self.write_config(config, overwrite=True)
        except ConfigError as exc:
            self.notify(str(exc), title="Settings not saved", severity="error")
            return False
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        keys = self._keys_by_id(self)

        def key(binding_id: str) -> str:
            # A key the keymap gave another binding takes this one's away: none then.
            return f" (key {keys[binding_id]})" if binding_id in keys else ""

        for mode, (_key, name) in AREAS.items():
            yield SystemCommand(
                f"Go to {name}", f"Open the {name} area{key(f'area.{mode}')}",
                partial(self.action_area, mode),
            )  # fmt: skip
        yield SystemCommand("Show keys", f"Every key of this screen{key('help')}", self.action_help)
        if self._can_reveal(screen):
            yield SystemCommand(
                "Reveal or mask personal data",
                f"Toggle SSN, FEIN and birth date display{key('reveal')}",
                self.action_toggle_reveal,
            )
        yield from self._binding_commands(screen)

    def _remapped(self, node: DOMNode | type[DOMNode]) -> BindingsMap:
        """``node``'s bindings with the keys the config's ``[keys]`` gave them."""
        bindings = node._merged_bindings if isinstance(node, type) else node._bindings
        remapped = (bindings or BindingsMap()).copy()
        remapped.apply_keymap(self._keymap)
        return remapped

    def key_of(self, node: DOMNode | type[DOMNode], binding_id: str) -> str:
        """How the key of ``node``'s binding ``binding_id`` shows, as ``[keys]`` has it
        ("F5"), for words that name it; "(no key)" if a remapping took it away. ``node``
        may be a screen class, for a key of a screen not open yet."""
        shown = self._keys_by_id(node).get(binding_id)
        if shown is None:
            return "(no key)"
        # In words a function key reads as on the keyboard: F5, where the footer says f5.
        return " or ".join(
            key.upper() if re.fullmatch(r"f\d{1,2}", key) else key for key in shown.split(" or ")
        )

    def _keys_by_id(self, node: DOMNode | type[DOMNode]) -> dict[str, str]:
        """How the keys of each of ``node``'s bindings show, by the binding's id."""
        shown: dict[str, list[str]] = {}
        for bindings in self._remapped(node).key_to_bindings.values():
            for binding in bindings:
                display = self.get_key_display(binding)
                if binding.id and display not in shown.setdefault(binding.id, []):
                    shown[binding.id].append(display)
        return {id_: " or ".join(displays) for id_, displays in shown.items()}

    def _binding_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key of the screen is in the palette too, by its binding's description and
        tooltip, with the key as the keymap has it."""
        done = {"help", "toggle_reveal", "area"}  # offered above, for every screen
        area = getattr(screen, "AREA", "") or type(screen).__name__.removesuffix("Screen")
        remapped = self._remapped(screen)
        for bindings in remapped.key_to_bindings.values():
            for binding in bindings:
                namespace, name, params = parse_action(binding.action)
                if name in done or not binding.description:
                    continue
                target = self if namespace == "app" else screen
                if target.check_action(name, params) is False:
                    continue
                done.add(name if not params else binding.action)
                key = f"key {self.get_key_display(binding)}"
                yield SystemCommand(
                    f"{area}: {binding.description}",
                    f"{binding.tooltip} ({key})" if binding.tooltip else key,
                    partial(screen.run_action, binding.action),
                )
