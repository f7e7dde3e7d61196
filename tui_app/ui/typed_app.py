"""``self.app`` as this app: the screens and widgets of this package reach ProducerApp's own
members (``client``, ``config``, ``env_name``...), and type checkers should know them.

Mix :class:`OfProducerApp` into a screen or widget class before Textual's own base. At run
time it is an empty class; to a type checker it is a message pump whose ``app`` is a
ProducerApp. :func:`screen_as` is the same for the screen on show, after a switch to an area.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.app import App
from textual.screen import Screen

if TYPE_CHECKING:
    from textual import getters
    from textual.message_pump import MessagePump

    from tui_app.ui.app import ProducerApp

    class OfProducerApp(MessagePump):
        app = getters.app(ProducerApp)  # Textual's own typed accessor

else:

    class OfProducerApp:
        pass


S = TypeVar("S", bound=Screen)


def screen_as(app: App, kind: type[S]) -> S:
    """The screen on show as ``kind``, the class of the area the caller has switched to."""
    screen = app.screen
    if not isinstance(screen, kind):
        raise TypeError(f"expected {kind.__name__} on show, found {type(screen).__name__}")
    return screen
