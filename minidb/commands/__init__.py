"""Subcommands of the ``minidb`` command: one module each, exposing ``register(subparsers)``.

``register`` adds the subcommand's parser and sets ``func`` (called with the parsed arguments, returning the exit
code) with ``parser.set_defaults(func=...)``. ``minidb.cli`` finds the modules here by itself.
"""
