"""The ``producer-tui`` command: the TUI by default; sandbox, bulk and screenshot commands.

Every subcommand imports what it needs when it runs, so ``producer-tui --help`` and the
TUI's start-up pay only for themselves. Config problems print one clear message and exit 2.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tui_app.bulk.commands import add_bulk_parser
from tui_app.shell.parsers import COMMANDS as SHELL_COMMANDS
from tui_app.shell.parsers import add_parsers, finite_number, iso_date, port, user_path
from tui_app.watch.commands import add_watch_parser
from tui_app.words import OBEYED, counted


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="producer-tui",
        description="Keyboard-first terminal app for the Producer Registry Services API.",
    )
    parser.add_argument("--env", help="environment to use instead of the config's active one")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("tui", help="open the app (the default)")

    config = sub.add_parser("config", help="show where the config file is, and check it")
    config.add_argument("action", choices=("path", "check"), nargs="?", default="check")

    shots = sub.add_parser("screenshots", help="regenerate the SVG screenshots of every screen")
    shots.add_argument(
        "--out", type=user_path, default="screenshots", help="folder for the SVG files"
    )
    shots.add_argument("scenes", nargs="*", help="only these scenes (default: all)")

    sandbox = sub.add_parser("sandbox", help="the stand-in service")
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", metavar="ACTION", required=True)
    serve = sandbox_sub.add_parser("serve", help="serve all five groups over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port, default=8765, help="0 picks a free port")
    serve.add_argument(
        "--db", type=user_path, required=True, help="SQLite database file (created if missing)"
    )
    serve.add_argument("--seed", type=int, default=42)
    serve.add_argument(
        "--size",
        type=_positive,
        default=5000,
        help="individuals in the synthetic registry (firms: a fifth)",
    )
    serve.add_argument(
        "--token-env",
        metavar="NAME",
        help="require Authorization: Bearer TOKEN on every request, TOKEN being the value "
        "of the environment variable NAME (kept out of the command line, which ps shows)",
    )
    serve.add_argument("--token", help=argparse.SUPPRESS)  # removed: refused with a hint
    serve.add_argument(
        "--max-bulk-records",
        type=_positive,
        default=1000,
        help="refuse bulk requests of more records with 413 (default 1000; the interface "
        "recommends 100 or fewer)",
    )
    serve.add_argument(
        "--fail-rate", type=_rate, default=0.0, help="share of transient, retryable failures (0..1)"
    )
    serve.add_argument(
        "--stop-with",
        type=int,
        metavar="PID",
        help="stop when process PID ends (a bulk worker's own sandbox)",
    )
    serve.add_argument(
        "--bulk-fail-rate",
        type=_rate,
        help="share of bulk records failing transiently, whole requests never (default: "
        "--fail-rate; an embedded environment's bulk_fail_rate)",
    )
    serve.add_argument(
        "--latency-ms",
        type=_non_negative,
        default=0,
        help="delay every answer by this many milliseconds",
    )
    serve.add_argument(
        "--step-seconds",
        type=finite_number,
        default=3.0,
        help="time an order spends in each stage of its lifecycle",
    )
    serve.add_argument(
        "--import-rules", type=user_path, help="TOML file of sections required per import"
    )
    serve.add_argument(
        "--dialect",
        choices=("native", "minimal"),
        default="native",
        help="shape of the answers: native, or the barest the spec allows",
    )
    serve.add_argument(
        "--today",
        type=iso_date,
        help="the sandbox's date (YYYY-MM-DD): a new registry's licenses are "
        "dated from it (default: the day it is first seeded); a later date "
        "shows an existing registry as it stands then (licenses expire)",
    )

    add_bulk_parser(sub, _positive)
    add_parsers(sub)  # search, record, order, profile, export (issue 11)
    add_watch_parser(sub, _positive)  # issue 16
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    saved = sys.stderr
    sys.stderr = _Unbroken(saved)
    try:
        return _main(argv)
    finally:
        sys.stderr = saved


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    # Pydantic looks for plugins in every installed package's metadata as it builds the
    # first model (13 ms of each start); this program uses none. Set before the first
    # model, and inherited by the processes it starts (sandbox, bulk worker, checker).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from tui_app.config import ConfigError

    try:
        with _shown_on_terminal(args.command in TEXT_COMMANDS):
            code = _run(args)
        sys.stdout.flush()  # a reader gone shows here, not in the interpreter's last flush
        return code
    except ConfigError as exc:
        print(f"producer-tui: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head: the reader has what it wanted
        _quiet(sys.stdout)
        return 0


TEXT_COMMANDS = frozenset({"config", "bulk", "watch", *SHELL_COMMANDS})
"""Commands that print text for a person: tables, messages, the service's own words."""


class _TerminalText:
    """A terminal's text stream that shows, instead of sending, the characters a terminal
    would obey (:data:`tui_app.words.OBEYED`). A write that begins with a carriage return
    is a progress line redrawing itself: that one CR is sent (one inside the text, from a
    service's message, could hide what came before it)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        redraw = "\r" if text.startswith("\r") else ""
        return self._stream.write(redraw + text[len(redraw) :].translate(OBEYED))

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class _Unbroken:
    """stderr whose reader may be gone (``2>&1 | head -1``): a message is then lost, but
    the exit code it goes with is not (QA: a failure read as exit 0, as the message's
    broken pipe ended the command the way a satisfied reader of its output does)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            _quiet(self._stream)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            _quiet(self._stream)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def _shown_on_terminal(wanted: bool) -> Iterator[None]:
    """An ESC sequence in a name the service sent, or in a file's line, recolours or
    retitles a terminal (or writes its clipboard): on a terminal it is shown instead.
    Output piped to a program stays exactly what the service sent."""
    saved = sys.stdout, sys.stderr
    if wanted:
        sys.stdout, sys.stderr = (
            _TerminalText(stream) if stream.isatty() else stream for stream in saved
        )
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _run(args: argparse.Namespace) -> int:
    if args.command == "sandbox":
        return _sandbox_serve(args)
    if args.command == "config":
        return _config(args)
    if args.command == "screenshots":
        return _screenshots(args)
    if args.command == "bulk":
        return _bulk(args)
    if args.command == "watch":
        from tui_app.watch.cli import main as watch_main

        return watch_main(args)
    if args.command in SHELL_COMMANDS:
        from tui_app.shell import main as shell_main

        return shell_main(args)
    return _tui(args)


def _quiet(stream) -> None:
    """Point ``stream`` at /dev/null so that no later write, nor the interpreter's final
    flush, complains about the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError):
        pass


def _config(args: argparse.Namespace) -> int:
    from tui_app.config import config_path, key_line_finder, load_config

    if args.action == "path":
        print(config_path())
        return 0
    config = load_config()
    from tui_app.ui.config_problems import config_problems

    if problems := config_problems(config):
        line_of = key_line_finder(config_path())
        for problem in problems:  # "key.path: message", or a theme file's own problem
            key, _, _ = problem.partition(": ")
            line = line_of(key) if re.fullmatch(r"[\w.-]+", key) else None
            where = f"{config_path()}{f':{line}' if line else ''}"
            print(f"producer-tui: {where}: {problem}", file=sys.stderr)
        return 2
    name, env = config.chosen(args.env)  # QA: --env nope said "OK"
    where = "embedded sandbox" if env.embedded else env.group_url("search")
    which = "environment" if args.env else "active environment"
    print(f"{config_path()}: OK; {which} {name} ({where})")
    return 0


def _screenshots(args: argparse.Namespace) -> int:
    import asyncio

    from tui_app.ui.scenes import SCENES, save_screenshots

    unknown = [name for name in args.scenes if name not in SCENES]
    if unknown:
        print(
            f"producer-tui: no scene {', '.join(unknown)}; scenes: {', '.join(SCENES)}",
            file=sys.stderr,
        )
        return 2
    for path in asyncio.run(save_screenshots(args.out, args.scenes or None)):
        print(path)
    return 0


def _bulk(args: argparse.Namespace) -> int:
    from tui_app.bulk.cli import main as bulk_main

    return bulk_main(args)


def _tui(args: argparse.Namespace) -> int:
    import gc

    gc.disable()  # enabled again by the app once connected (ProducerApp._start_collecting)
    from tui_app.config import load_config

    config = load_config()
    config.chosen(args.env)  # a name the config lacks is refused before the app starts
    from tui_app.ui.app import ProducerApp

    app = ProducerApp(config, env_name=args.env)
    app.run()
    _say_running_jobs()
    return app.return_code or 0  # 1 after a crash, which said 0


def _say_running_jobs() -> None:
    """After the app: bulk jobs run on in their workers; say so, and how to see them."""
    from tui_app.bulk.journal import Journal, JournalError, journal_path

    if not journal_path().exists():
        return
    try:
        with Journal() as journal:
            running = [j for j in journal.jobs() if not j.finished and journal.is_running(j.id)]
    except (JournalError, OSError):
        return
    if running:
        one = len(running) == 1
        print(
            f"{counted(len(running), 'bulk job')} keep{'s' * one} running; "
            f"`producer-tui bulk status` shows {'it' if one else 'them'}."
        )


def _sandbox_serve(args: argparse.Namespace) -> int:
    import os

    from tui_app.sandbox.serve import alive, serve

    def usage(message: str) -> int:
        print(f"producer-tui sandbox serve: {message}", file=sys.stderr)
        return 2

    if args.token is not None:
        return usage(
            "--token is no longer accepted (a token on the command line shows in "
            "ps): put it in an environment variable and pass --token-env NAME"
        )
    token = None
    if args.token_env is not None:
        token = os.environ.get(args.token_env)
        if not token or not token.strip():
            return usage(
                f"--token-env: the environment variable {args.token_env} is not set "
                "or is empty; an empty token would let anyone in"
            )
    if args.stop_with is not None and not alive(args.stop_with):
        return usage(f"--stop-with: no process {args.stop_with} is running")
    return serve(
        host=args.host,
        port=args.port,
        db=args.db,
        seed=args.seed,
        size=args.size,
        token=token,
        max_bulk_records=args.max_bulk_records,
        fail_rate=args.fail_rate,
        bulk_fail_rate=args.bulk_fail_rate,
        latency_ms=args.latency_ms,
        step_seconds=args.step_seconds,
        today=args.today,
        import_rules=args.import_rules,
        dialect=args.dialect,
        stop_with=args.stop_with,
    )
