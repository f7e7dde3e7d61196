"""Blocking work on a thread of its own: in order, off the loop, the resource opened and
closed there."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tui_app.own_thread import OwnThread


class Resource:
    def __init__(self, log: list[tuple[str, str]]) -> None:
        self.log = log
        log.append(("open", threading.current_thread().name))

    def add(self, item: str) -> str:
        self.log.append((item, threading.current_thread().name))
        return item.upper()

    def close(self) -> None:
        self.log.append(("close", threading.current_thread().name))


async def test_calls_run_in_order_on_the_one_thread_and_the_loop_goes_on():
    log: list[tuple[str, str]] = []
    own = OwnThread("res", lambda: Resource(log))
    assert log == []  # nothing opened until the first call
    results = await asyncio.gather(*(own.call(Resource.add, f"x{n}") for n in range(20)))
    assert results == [f"X{n}" for n in range(20)]
    assert [what for what, _ in log] == ["open", *(f"x{n}" for n in range(20))]
    threads = {name for _, name in log}
    assert len(threads) == 1 and threads != {threading.current_thread().name}
    await own.aclose()
    assert log[-1][0] == "close" and log[-1][1] in threads


def test_call_sync_from_another_thread_and_close_from_outside_a_loop():
    log: list[tuple[str, str]] = []
    own = OwnThread("res", lambda: Resource(log))
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(own.call_sync(Resource.add, "y")))
    worker.start()
    worker.join()
    assert found == ["Y"]
    own.close()
    assert [what for what, _ in log] == ["open", "y", "close"]


async def test_without_a_resource_only_plain_functions_run():
    own: OwnThread[Resource] = OwnThread("plain")
    assert await own.run(lambda a, b: a + b, 2, b=3) == 5
    with pytest.raises(RuntimeError, match="no resource"):
        await own.call(Resource.add, "z")
    own.close()
