"""The Producer Registry Services contract as pydantic v2 models, one module per group.

- :mod:`.search`   producer database search and the full registry record
- :mod:`.order`    producer transaction orders
- :mod:`.profile`  agent and agency profile records and the single import result
- :mod:`.bulk`     the bulk import envelope and status
- :mod:`.export`   producer export
- :mod:`.errors`   validation errors as ``path: message``

No I/O here, and nothing heavier than pydantic is imported.
"""
