"""A bulk job started from the TUI in a real terminal survives the terminal hanging up, as
an SSH connection that drops: the app gets SIGHUP and ends, its job's worker does not."""

from __future__ import annotations

import fcntl
import os
import pty
import shutil
import signal
import struct
import sys
import termios
import threading
import time

from bulk_support import agent, envelope, write_ndjson

from tui_app.bulk.journal import DONE, Journal
from tui_app.bulk.pipeline import DELAYS_VARIABLE
from tui_app.config import data_dir

F2, F5 = "\x1bOQ", "\x1b[15~"


def _drain(fd: int, seen: bytearray) -> None:
    """Read what the app draws, so it never blocks on a full terminal."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        seen.extend(chunk)


def _wait(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_a_job_started_in_the_tui_finishes_after_the_terminal_hangs_up(
    config_file, seeded_sandbox_db, tmp_path, monkeypatch
):
    data_dir().mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_sandbox_db, data_dir() / "sandbox-42.db")
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('active = "sandbox"\n\n[environments.sandbox]\nembedded = true\n'
                           "bulk_fail_rate = 0.3\n")  # fmt: skip
    count = 800
    records = [envelope(agent(f"HUP-{n}", 760_000 + n)) for n in range(count)]
    path = write_ndjson(tmp_path / "hup.ndjson", records)
    env = dict(os.environ, TERM="xterm-256color", **{DELAYS_VARIABLE: "4"})

    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, in the terminal, as a login shell would start it
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # even if this run ignores hangups (nohup)
        os.execve(sys.executable, [sys.executable, "-m", "tui_app"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = bytearray()
    threading.Thread(target=_drain, args=(fd, seen), daemon=True).start()
    try:
        _wait(lambda: b"online" in seen, 60, "the app, connected to its sandbox")
        os.write(fd, b"4")
        _wait(lambda: b"NDJSON" in seen, 30, "the Bulk area")
        for keys in (F2, str(path), F5):
            time.sleep(0.5)
            os.write(fd, keys.encode())
        journal = Journal()
        _wait(lambda: journal.jobs(), 60, "the job to be submitted")
        [job] = journal.jobs()
        _wait(lambda: journal.is_running(job.id), 30, "its worker")
    finally:
        os.close(fd)  # the terminal hangs up: the app's session gets SIGHUP
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0):
        time.sleep(0.1)
    else:
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError("the app did not end when its terminal hung up")
    assert journal.job(job.id).counts.settled < count  # the app ended before the job did
    _wait(lambda: journal.job(job.id).state == DONE and not journal.is_running(job.id), 120,
          "the job to finish without the app")  # fmt: skip
    c = journal.job(job.id).counts
    assert c.lines == count and c.completed + c.failed == count and c.unknown == 0
    journal.close()
