"""The implementations of the `perflab` subcommands, one module per family."""
