"""A checking process (``python -m tui_app.bulk.checker_process FILE ...``): see
:mod:`tui_app.bulk.checker`. Its priority is lowered first, before the contract's imports
(some 0.3 s of CPU), so a team starting at once never holds up the TUI that asked."""

from __future__ import annotations

import sys

from tui_app.bulk.background import CHECKER_NICENESS, yield_cpu


def main() -> None:
    yield_cpu(CHECKER_NICENESS)
    from tui_app.bulk.checker import serve  # imports the contract, at the lower priority

    serve(sys.argv[1:])


if __name__ == "__main__":
    main()
