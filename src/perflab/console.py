"""The two consoles every command prints to: results on stdout, progress and errors on stderr."""
import sys

from rich.console import Console

# Not on a terminal (CI logs, pipes): never wrap the table; let it be as wide as it is.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 1000)
err = Console(stderr=True, highlight=False)
