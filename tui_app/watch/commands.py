"""The ``producer-tui watch`` command line: its actions and options, nothing imported that
``producer-tui --help`` or the TUI's start-up would pay for (the actions are in
:mod:`tui_app.watch.cli`)."""

from __future__ import annotations

import argparse

from tui_app.shell.parsers import finite_number, iso_date, user_path

EXAMPLES = """\
examples:
  producer-tui watch add 19000001 19000002       watch these NPNs (this environment)
  producer-tui watch add --file roster.csv       a CSV with an NPN column (ProfileKey optional)
  producer-tui watch check                       read every record; findings as a table
  producer-tui watch check --days 30 --report findings.csv
  producer-tui watch check --format json | jq .

exit status (check): 0 nothing needs attention, 1 something does (findings), 2 bad usage,
input or config, 3 the check could not be done (service unreachable, credentials refused,
an unreadable answer; run check again: it carries on where it stopped), 130 interrupted
(resumable too).
"""


def add_watch_parser(sub: argparse._SubParsersAction, positive) -> None:
    watch = sub.add_parser(
        "watch",
        help="a roster of producers checked against the registry",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = watch.add_subparsers(dest="watch_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add NPNs to the roster (typed, or from a file)")
    add.add_argument("npns", nargs="*", metavar="NPN")
    add.add_argument(
        "--file",
        type=user_path,
        help="CSV with an NPN column (optional ProfileKey), NDJSON, "
        "a saved export document (.json) or a folder of them",
    )
    add.add_argument("--profile-key", help="the carrier's ProfileKey of the one NPN given")
    add.add_argument(
        "--demo",
        action="store_true",
        help="the embedded sandbox's demo roster (every kind of finding)",
    )
    remove = actions.add_parser("remove", help="take NPNs off the roster")
    remove.add_argument("npns", nargs="+", metavar="NPN")
    listing = actions.add_parser("list", help="the roster")
    listing.add_argument("--format", choices=("table", "json", "csv"))
    check = actions.add_parser("check", help="read every record on the roster; report findings")
    check.add_argument("--days", type=int, help="report licenses expiring within N days "
                       "(default: the environment's watch_days, 60)")  # fmt: skip
    check.add_argument("--rate", type=finite_number, help="requests per second at most (default: "
                       "the environment's watch_rate, 10; 0: no pacing)")  # fmt: skip
    check.add_argument(
        "--concurrency", type=positive, default=4, help="requests in flight at once (default 4)"
    )
    check.add_argument("--today", type=iso_date,
                       help="judge licenses as of this date (default: today, or the "
                       "embedded sandbox's today)")  # fmt: skip
    check.add_argument("--report", type=user_path, help="write the findings to this CSV file")
    check.add_argument("--force", action="store_true", help="replace the --report file")
    check.add_argument(
        "--format",
        choices=("table", "json"),
        help="findings on stdout (default: table on a terminal, else json)",
    )
    for command in (add, remove, listing, check):
        command.add_argument(
            "--env", default=argparse.SUPPRESS, help="environment (default: the active one)"
        )
