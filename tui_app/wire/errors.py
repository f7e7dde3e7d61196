"""The one error of the wire layer."""


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
