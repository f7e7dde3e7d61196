"""Watch (issue 16): a roster of producers checked against the registry, what changed and
what needs attention. Textual-free: the CLI and the TUI's Watch area share it."""
