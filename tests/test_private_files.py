"""``touch_private`` beside an open SQLite connection: making sure a database file exists
must not take away the locks this process already holds on it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from tui_app.private_files import FILE_MODE, touch_private

TAKE_THE_WRITE_LOCK = (
    "import sqlite3, sys\n"
    "sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None).execute('BEGIN EXCLUSIVE')"
)


def test_a_database_made_sure_of_keeps_the_locks_of_a_connection_open_on_it(tmp_path: Path):
    """Closing any descriptor of a file releases every POSIX lock the process holds on it.
    touch_private opened and closed the database a connection of this process held, and
    another process could then write under that connection (seen: "database disk image is
    malformed" in the bulk journal, after a test opened a second journal beside the app's)."""
    path = tmp_path / "data.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")  # rollback journal: an exclusive lock on the file
    path.chmod(0o644)
    touch_private(path)
    other = subprocess.run(
        [sys.executable, "-c", TAKE_THE_WRITE_LOCK, str(path)], capture_output=True, text=True
    )
    assert other.returncode != 0 and "database is locked" in other.stderr
    assert path.stat().st_mode & 0o777 == FILE_MODE  # still narrowed, by its path
    holder.execute("ROLLBACK")
    holder.close()


def test_a_missing_database_is_made_private(tmp_path: Path):
    path = touch_private(tmp_path / "new" / "data.db")
    assert path.stat().st_size == 0 and path.stat().st_mode & 0o777 == FILE_MODE
