"""``python -m tui_app`` does what the ``producer-tui`` command does."""

from tui_app.cli import main

raise SystemExit(main())
