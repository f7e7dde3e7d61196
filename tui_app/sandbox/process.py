"""Run ``producer-tui sandbox serve`` as a child process on a free loopback port, for
integration tests and benchmarks: ``with served(db) as s: httpx.get(s.url + ...)``."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ServedSandbox:
    url: str
    """Base URL of all five groups, e.g. ``http://127.0.0.1:41234``."""
    process: subprocess.Popen
    startup_seconds: float
    """From launch to serving: interpreter start, imports and seeding."""
    stderr_tail: deque[str] | None = None
    """The last lines the server wrote to stderr (drained all along, so that a chatty
    server never blocks on a full pipe)."""

    def stop(self, timeout: float = 20) -> int:
        """Stop it as Ctrl-C or SIGTERM would; its exit status (0 when clean)."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


@contextmanager
def served(
    db: Path, *args: str, host: str = "127.0.0.1", timeout: float = 120.0
) -> Iterator[ServedSandbox]:
    """Serve the sandbox with database ``db`` and further ``serve`` options ``args``;
    stopped on leaving the block. ``RuntimeError`` if it is not serving within ``timeout``
    seconds (a first seeding takes a few). In a session of its own: a Ctrl-C meant for
    the caller (a graceful stop) does not stop it under the caller's feet."""
    command = [
        sys.executable,
        "-m",
        "tui_app",
        "sandbox",
        "serve",
        "--host",
        host,
        "--port",
        "0",
        "--db",
        str(db),
        *args,
    ]
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    sandbox = None
    assert process.stdout is not None and process.stderr is not None  # both PIPE
    try:
        first: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: first.put(out.readline()), daemon=True).start()
        try:
            line = first.get(timeout=timeout)  # the serve command prints its URL once ready
        except queue.Empty:
            process.kill()
            raise RuntimeError(f"the sandbox was not serving after {timeout:.0f} s") from None
        if "http://" not in line:
            process.kill()
            raise RuntimeError(f"the sandbox did not start: {line}{process.stderr.read()}")
        url = line.split("at ", 1)[1].split()[0]
        tail: deque[str] = deque(maxlen=200)
        for stream in (process.stdout, process.stderr):
            threading.Thread(target=tail.extend, args=(stream,), daemon=True).start()
        sandbox = ServedSandbox(url, process, time.perf_counter() - start, tail)
        yield sandbox
    finally:
        if sandbox is not None:
            sandbox.stop()
        elif process.poll() is None:
            process.kill()
