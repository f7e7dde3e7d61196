"""The Textual app. Talks to the service only through ``client`` and ``bulk``."""
