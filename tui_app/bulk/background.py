"""Bulk work is background work: its processes lower their own scheduling priority, so on
a small machine the terminal beside them (the TUI, a shell) gets the CPU first. When
nothing else wants the CPU they run as fast as before."""

from __future__ import annotations

import os
from contextlib import suppress

WORKER_NICENESS = 10
"""How much a detached bulk worker lowers its priority."""
CHECKER_NICENESS = 5
"""How much a checking process lowers it, below the process it works for (a run's worker,
or the TUI during a pre-flight: validation must never make its keys wait)."""


def yield_cpu(by: int) -> None:
    """Lower this process's priority by ``by``."""
    with suppress(OSError, AttributeError):  # not permitted, or not on this system
        os.nice(by)
