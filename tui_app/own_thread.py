"""Blocking work (SQLite, files) on one thread of its own, awaited from an event loop.

The bulk pipeline's journal calls, the TUI's view of bulk jobs and the watch store each
keep one such thread: the loop never waits on a lock or a disk, and the calls run one at
a time in the order they were made, so a commit never overtakes an earlier one.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class Closable(Protocol):
    def close(self) -> None: ...


S = TypeVar("S", bound=Closable)


class OwnThread(Generic[S]):
    """One thread, and optionally a resource that lives on it: ``open`` is called there
    on first use (opening may create or migrate a file), and the resource is closed there
    by :meth:`close` / :meth:`aclose`."""

    def __init__(self, name: str, open: Callable[[], S] | None = None) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=name)
        self._open = open
        self._resource: S | None = None

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on the thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    async def call(
        self, method: Callable[Concatenate[S, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``method(resource, *args, **kwargs)`` on the thread."""
        return await self.run(functools.partial(self._with_resource, method, *args, **kwargs))

    def call_sync(
        self, method: Callable[Concatenate[S, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """The same from a thread that may block (never the event loop's)."""
        bound = functools.partial(self._with_resource, method, *args, **kwargs)
        return self._executor.submit(bound).result()

    def _with_resource(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._resource is None:
            if self._open is None:
                raise RuntimeError("this thread has no resource to call a method of")
            self._resource = self._open()
        return method(self._resource, *args, **kwargs)

    def _close_resource(self) -> None:
        if self._resource is not None:
            self._resource.close()
            self._resource = None

    async def aclose(self) -> None:
        await self.run(self._close_resource)
        self._executor.shutdown(wait=False)

    def close(self) -> None:
        """Close the resource and end the thread (blocking: from outside the loop)."""
        self._executor.submit(self._close_resource).result()
        self._executor.shutdown(wait=True)
