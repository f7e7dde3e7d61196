"""Formats on the wire: JSON (:mod:`.json`), XML (:mod:`.xml`) and streamed NDJSON
(:mod:`.ndjson`). Errors in the format itself raise :class:`.errors.WireError`.

This ``__init__`` imports nothing, so that importing one format does not pay for the others
(the XML module pulls in defusedxml and the expat parser).
"""
