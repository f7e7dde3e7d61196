"""Start-up time and memory of ``python -m tui_app`` against a minimal Textual app.

Usage (from the project root, with the project's venv)::

    .venv/bin/python benchmarks/bench_startup.py             # 5 rounds + 1 warm-up round
    .venv/bin/python benchmarks/bench_startup.py --runs 10 --cols 160 --rows 50
    .venv/bin/python benchmarks/bench_startup.py --runs 3 --no-imports

Each run starts an app in a real pseudo-terminal (``os.openpty``; the child gets it as its
controlling terminal and as stdin/stdout/stderr), TERM=xterm-256color, 120x40 by default.
A round is: our app with a fresh temporary config/data dir (first run: it writes the
default config, and the embedded sandbox seeds its database in the background), our app
again on the same dir (warm: config and seeded database exist; a CLI read of the registry
between the two lets the seeding finish), and ``benchmarks/minimal_app.py`` (Header, Footer, a
10-row DataTable). ``PRODUCER_TUI_CONFIG`` and ``PRODUCER_TUI_DATA`` always point into a
temporary dir, so a developer's own config is never read or written.

Figures, each as median and min over the rounds:

- first paint: launch until the end of the first synchronized update, whatever it holds.
- first frame: launch until the first *full* screen is on the terminal. The benchmark
  answers Textual's ``CSI ? 2026 $ p`` query as a modern terminal does, so Textual wraps
  each frame in a synchronized update (``CSI ? 2026 h`` ... ``CSI ? 2026 l``). The screen
  is full once every marker has been written (our app: "producer-tui" from the status bar
  and "palette" from the footer; minimal app: "row-10" from the last table row and
  "palette"), and the frame ends at the first ``CSI ? 2026 l`` after the last marker.
  Textual paints the footer's keys a frame or two after the rest, so timing the status bar
  alone would stop early (by about 0.07 s for the minimal app, 0.2 s for ours). (A run whose markers were not in a synchronized
  update is timed when the markers arrive and reported as "unsynced".)
- CPU ms: user + system CPU time of the app up to the first frame (/proc/<pid>/stat).
  It is much less sensitive than wall time to other load on the machine.
- MiB at frame: peak RSS (VmHWM from /proc/<pid>/status) when the first frame is seen.
- online: launch until the status bar says "● online", i.e. the embedded sandbox is
  connected, which by design happens after the first frame. Our app only. On a first run
  the sandbox is online while its registry is still being seeded on a thread; a search
  made meanwhile waits for the seeding to end.
- peak MiB: peak RSS over the whole run, sandbox included (``os.wait4``).
- quit: Ctrl+Q until the process has exited (it is killed after ``--timeout`` seconds).

Then two import profiles, each the per-module minimum of ``--import-runs`` runs: the top-10
cumulative imports of ``python -X importtime -c "import tui_app.ui.app"``, and what our app
imports before its first frame (run in the pty under ``-X importtime``, warm config) that
the minimal app does not, summed by top-level package and listed by module. Timings depend
on the machine and its load (printed with the results); none of them is a pass/fail test.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = (sys.executable, "-m", "tui_app")
MINIMAL = (sys.executable, str(ROOT / "benchmarks" / "minimal_app.py"))
APP_MARKERS = (b"producer-tui", b"palette")
MINIMAL_MARKERS = (b"row-10", b"palette")
ONLINE = "● online".encode()
SYNC_QUERY, SYNC_REPLY = b"\x1b[?2026$p", b"\x1b[?2026;2$y"
SYNC_START, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"
QUIT = b"\x11"  # Ctrl+Q
RSS_UNIT = 1024 * 1024 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes or KiB
CLOCK_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    paint_ms: float
    frame_ms: float
    cpu_ms: float
    frame_mib: float
    online_ms: float | None
    peak_mib: float
    quit_ms: float
    synced: bool
    log_at_frame: int
    """Bytes of the import log written before the first frame."""


class Timeout(Exception):
    pass


class Pty:
    """The terminal's side of the pty: collects what the app writes, answers the sync query."""

    def __init__(self, fd: int, start: float) -> None:
        self.fd, self.start, self.out, self.closed = fd, start, b"", False

    def pump(self, done, timeout: float) -> float:
        """Read until ``done()``; return the milliseconds since launch at that moment."""
        deadline = time.perf_counter() + timeout
        while not done():
            left = deadline - time.perf_counter()
            if left <= 0:
                raise Timeout
            if self.closed:
                time.sleep(min(left, 0.01))
            elif select.select([self.fd], [], [], min(left, 0.05))[0]:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except OSError:  # EIO: no process has the pty open any more
                    chunk = b""
                self.closed = not chunk
                if SYNC_QUERY not in self.out and SYNC_QUERY in self.out[-16:] + chunk:
                    os.write(self.fd, SYNC_REPLY)
                self.out += chunk
        return (time.perf_counter() - self.start) * 1000

    def last_marker(self, markers: tuple[bytes, ...]) -> int | None:
        found = [self.out.find(m) for m in markers]
        return None if min(found) < 0 else max(found)

    def in_sync_block(self, at: int) -> bool:
        return self.out.rfind(SYNC_START, 0, at) > self.out.rfind(SYNC_END, 0, at)

    def frame_done(self, markers: tuple[bytes, ...]) -> bool:
        """Whether the frame that completed ``markers`` has been written to its end."""
        last = self.last_marker(markers)
        if last is None:
            return False
        return not self.in_sync_block(last) or self.out.find(SYNC_END, last) >= 0


def _proc_sample(pid: int) -> tuple[float, float]:
    """(peak RSS in MiB, user + system CPU ms) of a running process, from /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # not Linux
        return float("nan"), float("nan")
    hwm = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    utime, stime = stat.rpartition(")")[2].split()[11:13]
    return int(hwm[1]) / 1024, (int(utime) + int(stime)) * CLOCK_TICK_MS


# Runs the app with fd 2, where -X importtime writes, on a log file, and sys.__stderr__,
# where Textual writes the screen, on fd 3: the pty.
_PROFILE_WRAPPER = """
import runpy, sys
sys.stderr = sys.__stderr__ = open(3, "w", encoding="utf-8", errors="backslashreplace")
sys.argv = sys.argv[1:]
if sys.argv[0] == "-m":
    del sys.argv[0]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _spawn(argv, env, size, import_log: str | None) -> tuple[int, int]:
    master, slave = os.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    if import_log:
        argv = (argv[0], "-X", "importtime", "-c", _PROFILE_WRAPPER, *argv[1:])
    pid = os.fork()
    if pid == 0:  # child: a new session with the pty as controlling terminal and stdio
        try:
            os.close(master)
            os.login_tty(slave)
            if import_log:
                os.dup2(1, 3)
                os.dup2(os.open(import_log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            os.chdir(ROOT)
            os.execve(argv[0], list(argv), env)
        finally:
            os._exit(127)
    os.close(slave)
    return pid, master


def launch(argv, env, markers, *, online=False, size=(120, 40), timeout=60.0, import_log=None):
    """Start ``argv`` in a pty, time its first full frame (and "● online"), quit it."""
    start = time.perf_counter()
    pid, master = _spawn(argv, env, size, import_log)
    term, exited = Pty(master, start), []

    def reaped() -> bool:
        if not exited:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid:
                exited.append((status, usage))
        return bool(exited)

    try:
        paint_ms = term.pump(
            lambda: SYNC_END in term.out or term.frame_done(markers) or reaped(), timeout
        )
        frame_ms = term.pump(lambda: term.frame_done(markers) or reaped(), timeout)
        if exited:
            raise RuntimeError(f"{argv} exited early:\n{term.out.decode(errors='replace')}")
        frame_mib, cpu_ms = _proc_sample(pid)
        synced = term.in_sync_block(term.last_marker(markers))
        log_at_frame = os.path.getsize(import_log) if import_log else 0
        online_ms = term.pump(lambda: ONLINE in term.out or reaped(), timeout) if online else None
        if exited:
            raise RuntimeError(f"{argv} exited before it was online")
        quit_sent = (time.perf_counter() - start) * 1000
        os.write(master, QUIT)
        quit_ms = term.pump(reaped, timeout) - quit_sent
    except Timeout:
        raise RuntimeError(f"{argv} timed out; its output ends:\n{term.out[-2000:]!r}") from None
    finally:
        if not exited:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(master)
    status, usage = exited[0]
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} exited with status {os.waitstatus_to_exitcode(status)}")
    peak_mib = usage.ru_maxrss / RSS_UNIT
    return Run(
        paint_ms, frame_ms, cpu_ms, frame_mib, online_ms, peak_mib, quit_ms, synced, log_at_frame
    )


def child_env(tmp: str) -> dict[str, str]:
    """The caller's environment minus size and Textual overrides, with config in ``tmp``.
    Without PYTHONDONTWRITEBYTECODE too: a user's Python caches compiled modules (pip
    compiles a wheel's as it installs it), and the warm-up round writes the cache, so
    no round pays for compiling the project's own modules from source (about 30 ms)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES", "PYTHONDONTWRITEBYTECODE")
    }
    env.update(
        TERM="xterm-256color",
        PRODUCER_TUI_CONFIG=str(Path(tmp, "config", "config.toml")),
        PRODUCER_TUI_DATA=str(Path(tmp, "data")),
    )
    return env


# --- import profiles -----------------------------------------------------------------------

_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$", re.M)


def _parse_importtime(text: str) -> dict[str, tuple[int, int, int]]:
    """module -> (self µs, cumulative µs, depth) from ``-X importtime`` output."""
    return {
        name: (int(s), int(c), len(indent) // 2)
        for s, c, indent, name in _IMPORT_LINE.findall(text)
    }


def _best(profiles: list[dict[str, tuple[int, int, int]]]) -> dict[str, tuple[int, int, int]]:
    """Per module, the least self and cumulative time over the profiles that have it."""
    best: dict[str, tuple[int, int, int]] = {}
    for profile in profiles:
        for name, (s, c, depth) in profile.items():
            old = best.get(name, (s, c, depth))
            best[name] = (min(s, old[0]), min(c, old[1]), depth)
    return best


def top_cumulative(runs: int, n: int = 10) -> list[tuple[str, tuple[int, int, int]]]:
    """The ``n`` slowest imports by cumulative time of ``import tui_app.ui.app``."""
    command = [sys.executable, "-X", "importtime", "-c", "import tui_app.ui.app"]
    profiles = [
        _parse_importtime(subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stderr)
        for _ in range(runs)
    ]
    return sorted(_best(profiles).items(), key=lambda item: -item[1][1])[:n]


def imports_before_frame(argv, markers, runs: int, size) -> dict[str, tuple[int, int, int]]:
    """What ``argv`` imports before its first frame, with a config that already exists."""
    profiles = []
    with tempfile.TemporaryDirectory() as tmp:
        env, log = child_env(tmp), str(Path(tmp, "imports.log"))
        subprocess.run([*APP, "config", "check"], env=env, cwd=ROOT, capture_output=True)
        for _ in range(runs):
            run = launch(argv, env, markers, size=size, import_log=log)
            text = Path(log).read_bytes()[: run.log_at_frame].decode(errors="replace")
            profiles.append(_parse_importtime(text[: text.rfind("\n") + 1]))
    return _best(profiles)


def print_import_profiles(runs: int, size) -> None:
    print(
        f'\nTop-10 cumulative imports of python -X importtime -c "import tui_app.ui.app" '
        f"(best of {runs}):"
    )
    print(f"{'cumul ms':>9} {'self ms':>8}  module")
    for name, (self_us, cumulative_us, depth) in top_cumulative(runs):
        print(f"{cumulative_us / 1000:9.1f} {self_us / 1000:8.1f}  {'  ' * depth}{name}")

    ours = imports_before_frame(APP, APP_MARKERS, runs, size)
    minimal = imports_before_frame(MINIMAL, MINIMAL_MARKERS, runs, size)
    extra = {name: value[0] for name, value in ours.items() if name not in minimal}
    by_package: dict[str, int] = defaultdict(int)
    for name, self_us in extra.items():
        by_package[name.split(".")[0]] += self_us
    total = [sum(v[0] for v in profile.values()) / 1000 for profile in (ours, minimal)]
    print(f"\nImport time before the first frame, pty runs under -X importtime (best of {runs}):")
    print(
        f"ours {total[0]:.0f} ms ({len(ours)} modules), minimal app {total[1]:.0f} ms "
        f"({len(minimal)} modules); only ours: {sum(extra.values()) / 1000:.0f} ms "
        f"({len(extra)} modules), by package:"
    )
    for package, us in sorted(by_package.items(), key=lambda kv: -kv[1])[:8]:
        print(f"{us / 1000:9.1f} ms  {package}")
    print("and its slowest modules (self time):")
    for name, us in sorted(extra.items(), key=lambda kv: -kv[1])[:12]:
        print(f"{us / 1000:9.1f} ms  {name}")


# --- timing rounds -------------------------------------------------------------------------

COLUMNS = {  # Run field -> (heading, format)
    "paint_ms": ("first paint ms", ".0f"),
    "frame_ms": ("first frame ms", ".0f"),
    "cpu_ms": ("CPU ms", ".0f"),
    "frame_mib": ("MiB at frame", ".1f"),
    "online_ms": ("online ms", ".0f"),
    "peak_mib": ("peak MiB", ".1f"),
    "quit_ms": ("quit ms", ".0f"),
}


def _cell(values, fmt: str) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return f"{'-':>15}"
    return f"{statistics.median(values):7{fmt}} {min(values):7{fmt}}"


def print_table(results: dict[str, list[Run]]) -> None:
    print(f"{'':20}" + "  ".join(f"{heading:>15}" for heading, _ in COLUMNS.values()))
    print(f"{'':20}" + "  ".join([f"{'median':>7} {'min':>7}"] * len(COLUMNS)))
    for name, runs in results.items():
        cells = "  ".join(
            _cell([getattr(r, field) for r in runs], fmt) for field, (_, fmt) in COLUMNS.items()
        )
        unsynced = sum(not r.synced for r in runs)
        print(f"{name:<20}{cells}" + (f"  ({unsynced} unsynced)" if unsynced else ""))
    base = results["minimal app"]
    for name in ("producer-tui fresh", "producer-tui warm"):
        diffs = []
        for field, (heading, fmt) in list(COLUMNS.items())[1:4]:
            ours, theirs = ([getattr(r, field) for r in x] for x in (results[name], base))
            median = statistics.median(ours) - statistics.median(theirs)
            least = min(ours) - min(theirs)
            diffs.append(f"{heading} {median:+{fmt}} median, {least:+{fmt}} min")
        print(f"{name} minus minimal app: " + "; ".join(diffs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured rounds (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="rounds not counted (default 1)")
    parser.add_argument("--cols", type=int, default=120, help="terminal width (default 120)")
    parser.add_argument("--rows", type=int, default=40, help="terminal height (default 40)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per wait")
    parser.add_argument("--import-runs", type=int, default=3, help="import profile runs")
    parser.add_argument("--no-imports", action="store_true", help="skip the import profiles")
    args = parser.parse_args()
    size, rounds = (args.cols, args.rows), args.warmup + args.runs

    names = ("producer-tui fresh", "producer-tui warm", "minimal app")
    results: dict[str, list[Run]] = {name: [] for name in names}
    for i in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            env, kw = child_env(tmp), {"size": size, "timeout": args.timeout}
            fresh = launch(APP, env, APP_MARKERS, online=True, **kw)
            if not Path(env["PRODUCER_TUI_CONFIG"]).exists():
                print("warning: the first run wrote no config file", file=sys.stderr)
            # The fresh run quits once online, while its sandbox may still be seeding in the
            # background: a read of the registry waits for the seeding, so the warm run is.
            subprocess.run([*APP, "record", "agent", "19000001"], env=env, capture_output=True)
            warm = launch(APP, env, APP_MARKERS, online=True, **kw)
            minimal = launch(MINIMAL, env, MINIMAL_MARKERS, **kw)
        if i >= args.warmup:
            for name, run in zip(names, (fresh, warm, minimal), strict=True):
                results[name].append(run)
        print(
            f"round {i + 1}/{rounds}{' (warm-up)' if i < args.warmup else ''}: first frame "
            f"fresh/warm/minimal {fresh.frame_ms:.0f} / {warm.frame_ms:.0f} / "
            f"{minimal.frame_ms:.0f} ms",
            file=sys.stderr,
        )

    print(
        f"\nStart-up in a {args.cols}x{args.rows} pty, TERM=xterm-256color, {args.runs} rounds "
        f"(+{args.warmup} warm-up), {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f}, Python {sys.version.split()[0]}"
    )
    print_table(results)
    if not args.no_imports:
        print_import_profiles(args.import_runs, size)


if __name__ == "__main__":
    main()
