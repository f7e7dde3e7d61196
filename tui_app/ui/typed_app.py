"""``self.app`` as this app: the screens and widgets of this package reach ProducerApp's own
members (``client``, ``config``, ``env_name``...), and type checkers should know them.

Mix :class:`OfProducerApp` into a screen or widget class before Textual's own base. At run
time it is an empty class; to a type checker it is a message pump whose ``app`` is a
ProducerApp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual import getters
    from textual.message_pump import MessagePump

    from tui_app.ui.app import ProducerApp

    class OfProducerApp(MessagePump):
        app = getters.app(ProducerApp)  # Textual's own typed accessor

else:

    class OfProducerApp:
        pass
