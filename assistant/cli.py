"""The ``mahj`` command line.

Every module in ``assistant.commands`` adds its own sub-commands through ``register(subparsers)``, so a new
command group is one new file and this entry point never needs editing. Each sub-command sets ``func`` (taking
the parsed namespace, returning an exit code) and offers ``--json``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import NoReturn

from assistant import commands
from engine.spelling import close_words, did_you_mean

_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse with a did-you-mean on a mistyped command or choice ("tiel" -> "tile"); sub-commands inherit it
    because argparse makes sub-parsers of the parent's class."""

    def error(self, message: str) -> NoReturn:
        m = _INVALID_CHOICE.search(message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2))
            hint = did_you_mean(m.group(1), choices)
            message = f"{message[:m.start()]}{m.group(1)!r} is not one of {', '.join(choices)}{hint}"
        elif message.startswith("unrecognized arguments: "):
            options = sorted(self._options())  # all commands' options: offer only the closest one
            for word in (w.split("=")[0] for w in message.split()[2:] if w.startswith("--")):
                owners = self._commands_with(word)
                if owners:    # spelt right, given to a command that does not take it
                    message += f" ({word} is an option of: {', '.join(owners)})"
                else:
                    message += "".join(f" (did you mean {best!r}?)" for best in close_words(word, options, n=1))
        super().error(message)

    def _options(self) -> set[str]:
        """Every --option of this parser and its sub-commands: argparse names an unknown option at the top level,
        where it no longer knows which sub-command was meant."""
        found: set[str] = set()
        for action in self._actions:
            found |= {o for o in action.option_strings if o.startswith("--")}
            for sub in (action.choices or {}).values() if isinstance(action, argparse._SubParsersAction) else ():
                found |= sub._options()
        return found


    def _commands_with(self, option: str) -> list[str]:
        """The sub-commands (``setup tiles`` for a nested one) that take ``option``."""
        owners: list[str] = []
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if any(option in a.option_strings for a in sub._actions):
                        owners.append(name)
                    owners += [f"{name} {inner}" for inner in sub._commands_with(option)]
        return owners


def mahj_version() -> str:
    """The installed package's version (a source tree that was never installed says so rather than failing)."""
    try:
        return version("mahj")
    except PackageNotFoundError:
        return "unknown (not installed; pip install -e .)"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="mahj", description="Camera-based assistant for American Mah Jongg tables (NMJL rules)."
    )
    parser.add_argument("--version", action="version", version=f"mahj {mahj_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
