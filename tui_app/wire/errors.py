"""The one error of the wire layer, and the words for a file that cannot be read as text."""

import errno
import os
import stat
from pathlib import Path


class WireError(ValueError):
    """A body that is not a well-formed document of its format, or is refused outright.

    The message is plain language, ready to show to a user. A document that is well formed
    but breaks the contract raises pydantic's ``ValidationError`` instead.
    """


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """Where a file fails to decode, as an editor finds it: ``line 2 is not UTF-8 text
    (byte 4 of the line, 0xe9); save the file as UTF-8``. (A file in another encoding is
    refused whole: its other lines are most likely garbled.)"""
    line = data.count(b"\n", 0, exc.start) + 1
    at = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return (
        f"line {line} is not UTF-8 text (byte {at} of the line, {data[exc.start]:#04x}); "
        "save the file as UTF-8"
    )


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def regular_file(path: Path) -> Path:
    """``path``, if it is a regular file; anything else is an ``OSError`` saying what it
    is. Reading a named pipe waits for a writer and a device may never end: a path typed
    by mistake hung the reader (and quitting the app waited for it)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, f"{file_kind(mode)}, not a file", str(path))
    return path
