"""The argparse side of the shell commands (issue 11): ``search``, ``record``, ``order``,
``profile`` and ``export``. Only argparse here, so that ``producer-tui --help`` and the
TUI's start-up do not pay for pydantic or httpx; the commands run in
:func:`tui_app.shell.main`, which imports their modules when used.
"""

from __future__ import annotations

import argparse
import math
from datetime import date
from pathlib import Path

COMMANDS = ("search", "record", "order", "profile", "export")

EXIT_CODES = """\
exit status:
  0  done
  1  the service refused or failed (validation 400, Success false, not found, an order
     REJECTED, DENIED or CANCELLED, a 5xx answer, credentials refused)
  2  bad usage, bad config or bad local input (nothing sent)
  3  the service could not be reached, timed out or answered something unreadable
"""

OUTPUT = """\
output: --format table (the default on a terminal: aligned, SSN, FEIN and birth dates
masked unless --reveal), json (the default when stdout is not a terminal: the service's
answer with every member it carried, personal data as received){extra}.
Errors go to stderr, one line per problem, naming the field.
"""


def user_path(text: str) -> Path:
    """The argparse type of every option naming a file or folder of the user's: ``~`` is
    their home, as the TUI's file dialogs read it (a shell expands it only unquoted). An
    empty name is refused: it would be the current folder (``Path("")`` is ``.``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: name a file or folder")
    return Path(text).expanduser()


def iso_date(text: str) -> date:
    """The argparse type of a date option (argparse's own message named the function:
    "invalid fromisoformat value")."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def finite_number(text: str) -> float:
    """The argparse type of seconds or a rate: finite and not negative (``inf`` would wait,
    or pace, for ever)."""
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more, not {text}")
    return value


def _command(sub, name: str, help: str, examples: str, formats: tuple[str, ...]):
    extra = "".join(f", {name}" for name in formats if name not in ("table", "json"))
    parser = sub.add_parser(
        name,
        help=help,
        description=help[:1].upper() + help[1:] + ".",
        epilog=f"examples:\n{examples}\n{OUTPUT.format(extra=extra)}\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(parser, formats)
    return parser


def _common(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    parser.add_argument(
        "--env",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="environment (default: the config's active one)",
    )
    if formats:
        parser.add_argument(
            "--format",
            choices=formats,
            default=None,
            help="output format (default: table on a terminal, else json)",
        )
    parser.add_argument(
        "--reveal", action="store_true", help="show SSN, FEIN/TIN and birth dates in full in tables"
    )


def add_parsers(sub) -> None:
    """Add the shell commands to ``producer-tui``'s subparsers."""
    _search(sub)
    _record(sub)
    _order(sub)
    _profile(sub)
    _export(sub)


def _search(sub) -> None:
    search = sub.add_parser(
        "search",
        help="search agents or agencies in the producer registry",
        description="Search individual (agents) or firm (agencies) producers.",
        epilog="examples:\n  producer-tui search agents --name Sample --first Avery\n"
        "  producer-tui search agencies --license CA 0K19002\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kinds = search.add_subparsers(dest="search_kind", metavar="KIND", required=True)
    formats = ("table", "json", "xml", "csv")
    agents = _command(
        kinds,
        "agents",
        "search individual producers",
        "  producer-tui search agents --name Sample --first Avery\n"
        "  producer-tui search agents --ssn 000121234 --last Sample --format json\n"
        "  producer-tui search agents --npn 19000001\n"
        "  producer-tui search agents --license CA 0H19001 --format csv > hits.csv",
        formats,
    )
    how = agents.add_mutually_exclusive_group(required=True)
    how.add_argument("--name", metavar="LAST", help="NAME search by last name (with --first)")
    how.add_argument("--ssn", metavar="SSN", help="SSN search (with --last)")
    how.add_argument("--npn", metavar="N", help="NPN search")
    how.add_argument("--license", nargs=2, metavar=("STATE", "NUMBER"), help="LICENSE search")
    agents.add_argument("--first", metavar="FIRST", help="first name (NAME search)")
    agents.add_argument("--middle", metavar="M", help="middle name (NAME search)")
    agents.add_argument("--last", metavar="LAST", help="last name (SSN search)")
    agents.add_argument("--cost-center", metavar="TEXT", help="account specific cost center")

    agencies = _command(
        kinds,
        "agencies",
        "search firm producers",
        "  producer-tui search agencies --name 'Sample Risk' --fein 00-0000001\n"
        "  producer-tui search agencies --ssn 000000001\n"
        "  producer-tui search agencies --license CA 0K19002\n"
        "  producer-tui search agencies --npn 19000002   # the firm's full record",
        formats,
    )
    how = agencies.add_mutually_exclusive_group(required=True)
    how.add_argument("--name", metavar="FIRM", help="NAME search by firm name (with --fein)")
    how.add_argument("--ssn", metavar="FEIN", help="SSN search: the firm's tax id")
    how.add_argument(
        "--npn",
        metavar="N",
        help="the firm by NPN (a firm search has no NPN field: this reads its "
        "full record, GET /agency)",
    )
    how.add_argument("--license", nargs=2, metavar=("STATE", "NUMBER"), help="LICENSE search")
    agencies.add_argument("--fein", metavar="FEIN", help="the firm's FEIN (NAME search)")
    agencies.add_argument("--cost-center", metavar="TEXT", help="account specific cost center")


def _record(sub) -> None:
    record = _command(
        sub,
        "record",
        "read the full registry record of an agent or agency by NPN",
        "  producer-tui record agent 19000001\n"
        "  producer-tui record agency 19000002 --format xml\n"
        "  producer-tui record agent 19000001 --reveal",
        ("table", "json", "xml"),
    )
    record.add_argument("kind", choices=("agent", "agency"))
    record.add_argument("npn", metavar="NPN")
    record.add_argument("--cost-center", metavar="TEXT", help="account specific cost center")


def _order(sub) -> None:
    order = sub.add_parser(
        "order",
        help="file appointment and termination orders and follow them",
        description="File orders, follow their status, list the orders filed from here.",
        epilog="examples:\n  producer-tui order submit appoint.json\n"
        "  producer-tui order status A1001 --watch\n  producer-tui order list\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = order.add_subparsers(dest="order_action", metavar="ACTION", required=True)
    submit = _command(
        actions,
        "submit",
        "validate an order file (JSON or XML) and file it",
        "  producer-tui order submit appoint.json\n"
        "  producer-tui order submit appoint.xml --update   # it exists: update it",
        ("table", "json", "xml"),
    )
    submit.add_argument(
        "file", type=user_path, metavar="FILE", help="the order: JSON, or XML with root <Order>"
    )
    submit.add_argument(
        "--update",
        action="store_true",
        help="allow updating an existing order of the same clientOrderNum "
        "(otherwise refused, nothing sent)",
    )
    status = _command(
        actions,
        "status",
        "show an order's status (the client's order number)",
        "  producer-tui order status A1001\n"
        "  producer-tui order status A1001 --watch        # one line per change, to the end",
        ("table", "json", "xml"),
    )
    status.add_argument("order_num", metavar="ORDER_NUM")
    status.add_argument(
        "--watch",
        action="store_true",
        help="follow it until a final state, one line per change "
        "(json: one answer per line); exit 1 unless APPROVED",
    )
    status.add_argument(
        "--interval",
        type=finite_number,
        default=2.0,
        metavar="SECONDS",
        help="seconds between queries with --watch (default 2)",
    )
    listing = _command(
        actions,
        "list",
        "the orders filed from this machine to this environment",
        "  producer-tui order list\n  producer-tui order list --env staging --format json",
        ("table", "json", "csv"),
    )
    del listing


def _profile(sub) -> None:
    profile = sub.add_parser(
        "profile",
        help="import agent and agency profiles (XML), or check them locally",
        description="Import one profile document, or check it without sending anything.",
        epilog="examples:\n  producer-tui profile check agent.xml\n"
        "  producer-tui profile import agent.xml\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = profile.add_subparsers(dest="profile_action", metavar="ACTION", required=True)
    imp = _command(
        actions,
        "import",
        "import an agent or agency XML document (by its root element)",
        "  producer-tui profile import agent.xml\n"
        '  for f in profiles/*.xml; do producer-tui profile import "$f" || echo "$f"; done',
        ("table", "json", "xml"),
    )
    imp.add_argument("file", type=user_path, metavar="FILE.xml")
    check = _command(
        actions,
        "check",
        "validate a profile document locally (nothing is sent)",
        "  producer-tui profile check agent.xml\n"
        "  producer-tui profile check agency.xml --format json   # the record as validated",
        ("table", "json", "xml"),
    )
    check.add_argument("file", type=user_path, metavar="FILE.xml")


def _export(sub) -> None:
    export = _command(
        sub,
        "export",
        "export data sets of an agent or agency profile",
        "  producer-tui export agent AQS-1 --data-sets Address,License\n"
        "  producer-tui export agency SRP-1 --all --out srp1.json\n"
        "  producer-tui export agent AQS-1 --all --csv exports/   # one CSV per data set",
        ("table", "json", "xml"),
    )
    export.add_argument("kind", choices=("agent", "agency"))
    export.add_argument("profile_key", metavar="PROFILE_KEY")
    which = export.add_mutually_exclusive_group()
    which.add_argument("--data-sets", metavar="A,B", help="comma-separated data set names")
    which.add_argument(
        "--all", action="store_true", help="every data set the interface lists (the default)"
    )
    where = export.add_mutually_exclusive_group()
    where.add_argument(
        "--out", type=user_path, metavar="FILE.json", help="write the answer to this JSON file"
    )
    where.add_argument(
        "--csv", type=user_path, metavar="DIR", help="write one CSV file per data set in DIR"
    )
    export.add_argument(
        "--force", action="store_true", help="replace the files of --out or --csv if they exist"
    )


def port(text: str) -> int:
    """The argparse type of a TCP port to listen on (0: any free one): out of range was a
    traceback from bind()."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value
