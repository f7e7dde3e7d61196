"""The sandbox: a stand-in for the whole Producer Registry service, as an ASGI app over
SQLite with a deterministic synthetic registry. Imports only ``contract`` and ``wire``."""
