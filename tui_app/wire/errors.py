"""The one error of the wire layer."""


class WireError(ValueError):
    """A body that is not a well-formed document of its format, or is refused outright.

    The message is plain language, ready to show to a user. A document that is well formed
    but breaks the contract raises pydantic's ``ValidationError`` instead.
    """
