"""producer-tui: a keyboard-first terminal app for the Producer Registry Services API.

This package's ``__init__`` deliberately imports nothing: start-up time matters, and the
heavy parts (the sandbox, XML, bulk, the UI) are imported where they are first used.
"""

__version__ = "0.1.0"
