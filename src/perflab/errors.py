"""Errors that end a command with a clear one-line message (exit status 2) versus failures of one case."""


class UsageError(Exception):
    """Bad input from the user: a flag, a path, a runtime name. Printed as one line; exit status 2."""


class PrepareError(Exception):
    """A runtime could not be prepared (not installed, build failed). Fails that runtime's cases only."""


class ProtocolError(Exception):
    """A worker broke protocol v2. Fails the launch in which it happened."""


# how a case that waited too long for a worker's reply fails (the history knows such cases by it)
TIMED_OUT = "timed out after"


class WorkerFailure(Exception):
    """A worker crashed, exited, timed out or reported a benchmark exception. Fails one case."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail
