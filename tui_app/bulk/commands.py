"""The ``producer-tui bulk`` command line: its actions and options, nothing imported that
``producer-tui --help`` or the TUI's start-up would pay for (the actions are in
:mod:`tui_app.bulk.cli`)."""

from __future__ import annotations

import argparse

from tui_app.bulk import MIN_REQUEST_BYTES
from tui_app.shell.parsers import user_path

EXAMPLES = """\
examples:
  producer-tui bulk check agents.ndjson           validate only: the bad lines, nothing sent
  producer-tui bulk submit agents.ndjson          start a job; prints its id at once
  producer-tui bulk status 3f9a --follow          progress lines until it ends
  producer-tui bulk stop 3f9a                     stop it gracefully (resumable)
  producer-tui bulk resume 3f9a                   carry on where it stopped
  producer-tui bulk retry 3f9a                    send its retryable failures again
  producer-tui bulk verify 3f9a                   settle lines of unknown outcome
  producer-tui bulk report 3f9a --out r.csv       every line's outcome, and the lines to fix

exit status: 0 every record succeeded (or the job started, or check found them all
valid), 1 some did not or the job stopped, 2 bad usage, file, job, journal or config,
3 service unreachable (verify), 130 interrupted.
"""


def add_bulk_parser(sub: argparse._SubParsersAction, positive) -> None:
    bulk = sub.add_parser(
        "bulk",
        help="import NDJSON files of agent and agency records",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = bulk.add_subparsers(dest="bulk_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check", help="validate FILE as submit would, sending and recording nothing"
    )
    check.add_argument(
        "file", type=user_path, help="NDJSON: bulk envelopes or bare agent/agency records"
    )
    check.add_argument("--env", default=argparse.SUPPRESS,
                       help="whose bulk_max_request_bytes applies (default: the active one)")  # fmt: skip
    check.add_argument("--max-request-bytes", type=_request_bytes,
                       help="a line longer than this many bytes is invalid (no request could "
                       "carry it); default: the environment's bulk_max_request_bytes")  # fmt: skip
    submit = actions.add_parser("submit", help="validate FILE and send its records")
    submit.add_argument(
        "file", type=user_path, help="NDJSON: bulk envelopes or bare agent/agency records"
    )
    submit.add_argument("--batch-size", type=positive, default=100,
                        help="records per request, at most 100 (default 100)")  # fmt: skip
    submit.add_argument("--max-request-bytes", type=_request_bytes,
                        help=f"largest request body in bytes, at least {MIN_REQUEST_BYTES} "
                        "(a request holds at least one whole record); default: the "
                        "environment's bulk_max_request_bytes, else none until the service "
                        "says 413")  # fmt: skip
    submit.add_argument("--again", action="store_true",
                        help="submit FILE even if a job of this environment already had the "
                        "same content (refused otherwise: every record would be sent again)")  # fmt: skip
    resume = actions.add_parser("resume", help="finish a job cut short")
    retry = actions.add_parser("retry", help="send a job's retryable failures again")
    work = actions.add_parser("work")  # the detached worker's own command (not listed)
    verify = actions.add_parser(
        "verify", help="read back the profiles of lines of unknown outcome and settle them"
    )
    for command in (resume, retry, verify, work):
        command.add_argument("job", help="job id (or a unique prefix)")
    for command in (submit, resume, retry, verify):
        command.add_argument("--env", default=argparse.SUPPRESS,
                             help="environment (submit: default the active one)")  # fmt: skip
    for command in (submit, resume, retry, work):
        command.add_argument("--report", type=user_path,
                             help="write this CSV report (and failed.ndjson "
                             "beside it) when the job ends")  # fmt: skip
        command.add_argument("--concurrency", type=positive, default=4,
                             help="requests in flight at once (default 4)")  # fmt: skip
    for command in (submit, resume, retry):
        command.add_argument("--wait", action="store_true",
                             help="run the job in this process and follow it to its end "
                             "instead of in a background worker; exit 0 only if every "
                             "record succeeded")  # fmt: skip
        command.add_argument("--force", action="store_true",
                             help="replace the --report files if they exist")  # fmt: skip
    status = actions.add_parser("status", help="list jobs, or show one")
    status.add_argument("job", nargs="?", help="job id (or a unique prefix)")
    status.add_argument("--follow", action="store_true",
                        help="with JOB: print its progress until it ends")  # fmt: skip
    status.add_argument("--env", default=argparse.SUPPRESS, help="list only this environment's")
    stop = actions.add_parser("stop", help="stop a running job gracefully (it can be resumed)")
    stop.add_argument("job", help="job id (or a unique prefix)")
    report = actions.add_parser("report", help="write a job's CSV report and failed lines")
    report.add_argument("job", help="job id (or a unique prefix)")
    report.add_argument(
        "--out", type=user_path, required=True, help="CSV file: one row per input line"
    )
    report.add_argument("--failed", type=user_path,
                        help="NDJSON of the failed and invalid lines "
                        "(default: failed.ndjson beside --out)")  # fmt: skip
    report.add_argument("--force", action="store_true", help="replace the files if they exist")


def _request_bytes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:  # argparse's own message named this function
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of bytes") from None
    if value < MIN_REQUEST_BYTES:
        raise argparse.ArgumentTypeError(
            f"must be at least {MIN_REQUEST_BYTES}: a request holds at least one whole record"
        )
    return value
