"""One module per ``mahj`` command group. Each exposes ``register(subparsers)``; ``assistant.cli`` finds them."""
