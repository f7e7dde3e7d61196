"""Files that may hold personal data: created 0600 in folders created 0700, and CSV cells
that a spreadsheet would run as a formula neutralised.

Journals, reports, ``failed.ndjson``, exports, logs and the sandbox database can hold SSNs,
TINs and birth dates; another user of a shared machine must not be able to read them. An
existing file is narrowed to 0600 when it is written again; an existing folder the user
chose is left as it is.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import IO, Any

FILE_MODE = 0o600
FOLDER_MODE = 0o700
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP's CSV injection list)."""


def private_folder(path: Path, *, ours: bool = False) -> Path:
    """Create ``path`` (and missing parents) as 0700 folders. An existing folder is kept as
    it is, unless ``ours`` (the app's own data folder), which is narrowed to 0700."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode is reduced by the umask
    if ours and path.stat().st_mode & 0o777 != FOLDER_MODE:
        os.chmod(path, FOLDER_MODE)
    return path


def _opener(path: str, flags: int) -> int:
    fd = os.open(path, flags, FILE_MODE)
    os.fchmod(fd, FILE_MODE)  # a file that existed keeps its mode otherwise
    return fd


def open_private(path: Path, mode: str = "w", **kwargs: Any) -> IO[Any]:
    """``open(path, mode)`` for writing, the file 0600 whether new or not."""
    return open(path, mode, opener=_opener, **kwargs)  # noqa: SIM115 - the caller closes it


def write_private(path: Path, content: bytes) -> None:
    """Write ``content`` to ``path`` as a 0600 file."""
    with open_private(path, "wb") as file:
        file.write(content)


SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside a database, holding the same data."""


def touch_private(path: Path) -> Path:
    """Make sure ``path`` exists as a 0600 file (before SQLite opens it: it gives new -wal
    and -shm files the database file's mode). Companions left 0644 by an older version are
    narrowed too: SQLite keeps an existing file's mode.

    An existing file is never opened: closing any descriptor of a database file releases
    every POSIX lock this process holds on it, those of a SQLite connection already open
    on it too, and another process may then write under that connection (SQLite's "How To
    Corrupt": a test that opened the bulk journal beside the app's saw "database disk image
    is malformed")."""
    private_folder(path.parent)
    try:
        os.close(_opener(str(path), os.O_RDWR | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        if path.is_dir():  # said as opening it would have said it
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path)) from None
        _narrow(path)
    for suffix in SQLITE_COMPANIONS:
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            _narrow(companion)
    return path


def _narrow(path: Path) -> None:
    if path.stat().st_mode & 0o777 != FILE_MODE:
        os.chmod(path, FILE_MODE)


def safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: one starting like a formula gets a leading
    apostrophe. Other values pass unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def can_write_in(folder: Path) -> bool:
    """Whether a file can be made in ``folder``, found by making one: permission bits do
    not say it for root, nor for /proc, /sys or a read-only mount (QA: ``--report
    /sys/r.csv`` passed the check, and the report failed once the job had run)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False
