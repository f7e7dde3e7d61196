"""The one async client of the Producer Registry service: a method per endpoint, typed
errors, auth, timeouts and retries. The only place in the app that speaks HTTP."""

import sys

# httpx's __init__ imports its command-line tool, httpx._main, which drags in Rich,
# Pygments and click whenever they are installed (about 60 ms, and Rich has no place in the
# headless core). httpx falls back to a stub when that import fails; make it fail.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
