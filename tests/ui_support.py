"""What the Pilot tests share."""

from __future__ import annotations

SIZE = (120, 40)


async def settle(app, pilot) -> None:
    """Let the app finish what the last key started: messages, then workers."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
