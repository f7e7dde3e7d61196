"""Run ``producer-tui sandbox serve`` as a real process on a loopback port, for tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tui_app.config import GROUP_PREFIXES

TODAY = "2026-11-21"


@dataclass
class Server:
    url: str
    process: subprocess.Popen

    @property
    def urls(self) -> dict[str, str]:
        return {group: self.url + prefix for group, prefix in GROUP_PREFIXES.items()}

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=20)


@contextmanager
def serve(db: Path, *args: str) -> Iterator[Server]:
    """Start the sandbox on a free port and yield it once it prints its URL."""
    command = [sys.executable, "-m", "tui_app", "sandbox", "serve", "--port", "0",
               "--db", str(db), "--size", "300", "--today", TODAY, *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = process.stdout.readline()
        if "http://" not in line:
            process.kill()
            raise RuntimeError(f"sandbox did not start: {line}{process.stderr.read()}")
        url = line.split("at ", 1)[1].split()[0]
        yield Server(url, process)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
