"""The one async client of the Producer Registry service: a method per endpoint, typed
errors, auth, timeouts and retries. The only place in the app that speaks HTTP."""
