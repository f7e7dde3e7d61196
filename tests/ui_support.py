"""What the Pilot tests share."""

from __future__ import annotations

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
