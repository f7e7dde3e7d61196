"""Bulk import that loses nothing: stream, validate, batch, submit, poll, retry, resume.

Used by the CLI (``producer-tui bulk``) and the TUI alike; it never imports Textual or
Rich. The modules, imported where they are needed (this ``__init__`` imports nothing):

- :mod:`~tui_app.bulk.source`: the input file: checked, fingerprinted, validated a line at
  a time;
- :mod:`~tui_app.bulk.journal`: the SQLite journal of jobs, lines and requests, with job
  listing, per-line outcomes (filtered by state and retryable) and ``retry_retryable``;
- :mod:`~tui_app.bulk.pipeline`: ``create_job`` and ``run_job``, which starts, resumes or
  finishes a job;
- :mod:`~tui_app.bulk.report`: the CSV report and the NDJSON of lines to fix;
- :mod:`~tui_app.bulk.cli`: the ``bulk`` subcommands.
"""

MIN_REQUEST_BYTES = 1024
"""The smallest request size limit a user may set (``--max-request-bytes``, an
environment's ``bulk_max_request_bytes``). A request carries at least one whole record, and
a small record in its envelope takes 150 to 300 bytes: a lower limit could only refuse
records as too large (a service's real limit is learned from its 413 answers anyway)."""
