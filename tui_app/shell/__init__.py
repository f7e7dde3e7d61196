"""Every operation of the interface from the shell (issue 11), on the client, config and
contract the TUI uses: ``search``, ``record``, ``order``, ``profile``, ``export``.

Exit status, the same for every command: 0 done; 1 the service refused or failed; 2 bad
usage, bad config or bad local input (nothing sent); 3 the service could not be reached,
timed out or answered something unreadable. Never a traceback: one line per problem.
"""

from __future__ import annotations

import argparse
import importlib


def main(args: argparse.Namespace) -> int:
    """Run the shell command ``args.command``."""
    from tui_app.client.errors import (
        BadResponse,
        ClientError,
        InvalidInput,
        Rejected,
        Unavailable,
    )
    from tui_app.config import ConfigError
    from tui_app.shell.output import (
        INTERRUPTED,
        REFUSED,
        UNREACHABLE,
        USAGE,
        Usage,
        say,
    )
    from tui_app.wire.errors import WireError

    try:
        module = importlib.import_module(f"tui_app.shell.{args.command}")
        return module.run(args)
    except Usage as exc:
        for problem in exc.problems:
            say(problem)
        return USAGE
    except ConfigError as exc:
        say(str(exc))
        return USAGE
    except InvalidInput as exc:
        for error in exc.errors:
            say(str(error))
        return USAGE
    except Rejected as exc:
        say(f"refused ({exc.status}): {exc.message}")
        for error in exc.errors:
            say(str(error))
        return REFUSED
    except (Unavailable, BadResponse) as exc:
        say(exc.message)
        return UNREACHABLE
    except ClientError as exc:  # credentials refused, the service failed (5xx)
        say(exc.message)
        return REFUSED
    except BrokenPipeError:
        raise  # piped into head: tui_app.cli.main ends quietly
    except WireError as exc:  # a local file that is not a readable document
        say(str(exc))
        return USAGE
    except OSError as exc:
        say(f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
        return USAGE
    except KeyboardInterrupt:
        return INTERRUPTED
