"""``mahj tournament``: run a tournament from the tables' own verified results (docs/tournament.md).

    mahj tournament new NAME --players players.csv --tables T --rounds R --games-per-round G [--seed N]
    mahj tournament serve [--workers N]  # the standings, director's and scorer pages, and the report API
    mahj tournament round next       # close the round, seat the next by the rotation
    mahj tournament standings [--csv]
    mahj tournament export --out DIR # score sheets and standings as PDF and CSV
    mahj tournament token --table N  # a new token for a table (the old one stops working)

Every command takes ``--db`` (a SQLite file, default tournament.db or $MAHJ_TOURNAMENT_DB, or a
postgresql+psycopg:// URL) and ``--json``. Errors are one message and exit 1 (refused) or 2 (bad input).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from assistant.arguments import count_arg, scoring_profile_arg
from assistant.console import command_error

DEFAULT_PORT = 8780


class Failed(Exception):
    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=os.environ.get("MAHJ_TOURNAMENT_DB", "tournament.db"),
                   help="SQLite file or postgresql+psycopg://USER:PASSWORD@HOST/DB (default: tournament.db or "
                        "$MAHJ_TOURNAMENT_DB)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def positive_seconds(text: str) -> float:
    """A number of seconds above 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, more than 0 and under 3600")
    return value


def default_url(port: int = DEFAULT_PORT) -> str:
    return f"http://{socket.gethostname().split('.')[0].lower()}.local:{port}"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tournament", help="run a tournament: seating, table reports, standings, director's pages")
    t = p.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)

    new = t.add_parser("new", help="create a tournament, seat round 1, print the tokens and table cards")
    new.add_argument("name", help="the tournament's name")
    new.add_argument("--players", type=Path, required=True, help="CSV: a 'name' column (and 'table', 'seat' to "
                                                                  "seat round 1 as given)")
    new.add_argument("--tables", type=int, required=True)
    new.add_argument("--rounds", type=int, required=True)
    new.add_argument("--games-per-round", type=int, default=4)
    new.add_argument("--profile", default="mahjcon", type=scoring_profile_arg,
                     help="scoring profile in points (default mahjcon) or a profile TOML")
    new.add_argument("--card", type=Path, help="the card hands are verified on (default: the sample card)")
    new.add_argument("--seed", type=int, help="draw round 1's seats repeatably")
    new.add_argument("--url", help=f"the address tables will use (default {default_url()})")
    new.add_argument("--cards", type=Path, default=Path("table-cards.pdf"), help="where to write the table cards")
    _common(new)
    new.set_defaults(func=guarded(run_new))

    serve = t.add_parser("serve", help="serve the standings, director's and scorer pages and the report API")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default all: the tables' LAN)")
    serve.add_argument("--port", type=int, help=f"port to listen on (default: the one in the tables' address given "
                                                 f"to new, else {DEFAULT_PORT})")
    serve.add_argument("--public-standings", action="store_true",
                       help="let any machine on the LAN read the standings page without a token")
    serve.add_argument("--workers", type=count_arg, default=1,
                       help="serving processes (a large event: one per CPU core, with PostgreSQL)")
    serve.add_argument("--request-timeout", type=positive_seconds, default=10.0, metavar="S",
                       help="seconds a request may take to arrive whole (default 10); slower or idle connections "
                            "are answered 408 and closed")
    serve.add_argument("--per-address", type=count_arg, default=32, metavar="N",
                       help="connections one address may hold open at once, per serving process (default 32)")
    _common(serve)
    serve.set_defaults(func=guarded(run_serve))

    rnd = t.add_parser("round", help="round commands")
    rsub = rnd.add_subparsers(dest="round_command", metavar="ACTION", required=True)
    nxt = rsub.add_parser("next", help="close the current round and seat the next by the rotation (closing the "
                                       "last round ends the tournament)")
    nxt.add_argument("--force", action="store_true", help="score unreported games as not finished in time")
    nxt.add_argument("--who", default="director", help="who closes the round (kept with forced games)")
    _common(nxt)
    nxt.set_defaults(func=guarded(run_round_next))

    st = t.add_parser("standings", help="print the standings")
    st.add_argument("--csv", action="store_true", help="print CSV")
    _common(st)
    st.set_defaults(func=guarded(run_standings))

    ex = t.add_parser("export", help="write score sheets and standings as PDF and CSV")
    ex.add_argument("--out", type=Path, default=Path("tournament-export"), help="folder (default tournament-export)")
    _common(ex)
    ex.set_defaults(func=guarded(run_export))

    tok = t.add_parser("token", help="issue a new token for a table or the director; the old one stops working")
    who = tok.add_mutually_exclusive_group(required=True)
    who.add_argument("--table", type=int)
    who.add_argument("--director", action="store_true")
    tok.add_argument("--url", help="the address tables use (default: the one given to new, as on the other cards)")
    tok.add_argument("--cards", type=Path, help="also write this table's card (PDF)")
    _common(tok)
    tok.set_defaults(func=guarded(run_token))


def guarded(func):
    """Turn the tournament's and the database's errors into one message and an exit code; no traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            from assistant.tournament.db import DatabaseError
            from assistant.tournament.roster import RosterError
            from assistant.tournament.store import TournamentError
        except ImportError as exc:
            return command_error(args, f"tournament mode needs its extra: pip install 'mahj[tournament]' "
                                       f"({exc.name} is missing)", 2)
        try:
            return func(args)
        except Failed as exc:
            return command_error(args, str(exc), exc.code)
        except RosterError as exc:
            return command_error(args, str(exc), 2)
        except DatabaseError as exc:
            return command_error(args, str(exc), 2)
        except TournamentError as exc:
            return command_error(args, str(exc), 1 if exc.status in (403, 404, 409) else 2)

    return run


def _out(args: argparse.Namespace, data: dict[str, Any], text: str) -> int:
    print(json.dumps(data) if args.json else text)
    return 0


def _store(args: argparse.Namespace):
    from assistant.tournament.store import Store

    return Store.open(args.db)


def seating_text(seating: dict[int, dict[str, str]]) -> str:
    return "\n".join(f"  table {t:>3}: " + "  ".join(f"{x} {n}" for x, n in s.items()) for t, s in seating.items())


def run_new(args: argparse.Namespace) -> int:
    from assistant.journal import builtin_profile_text
    from assistant.tournament.roster import read_roster
    from assistant.tournament.sheets import table_cards
    from assistant.tournament.store import Store
    from engine.card import SAMPLE_CARD, CardError, load_card
    from engine.referee import ProfileError, parse_profile

    roster = read_roster(args.players)
    try:
        profile = builtin_profile_text(args.profile)
        if parse_profile(*profile).mode != "points":
            raise Failed(f"--profile {args.profile}: pays money; a tournament scores points (use mahjcon or a "
                         "points profile)")
    except OSError as exc:
        raise Failed(f"--profile {args.profile}: cannot read it: {exc.strerror or exc}") from None
    except ProfileError as exc:
        raise Failed(str(exc)) from None
    folder = args.cards.resolve().parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise Failed(f"--cards {args.cards}: cannot write there (no such folder, or not writable)")
    card_path = args.card or SAMPLE_CARD
    try:
        load_card(card_path)  # its size cap and errors as file:line:col, before anything is written
        card = (card_path.read_text(encoding="utf-8-sig"), str(card_path))
    except OSError as exc:
        raise Failed(f"--card {card_path}: {exc.strerror or exc}") from None
    except (CardError, UnicodeDecodeError) as exc:
        raise Failed(f"--card {card_path} has errors (run: mahj card lint {card_path})\n{exc}") from None
    base = args.url or default_url()
    warnings = address_warnings(base) + font_warnings([args.name, *roster.names])
    store, tokens = Store.create(args.db, args.name, roster.names, args.tables, args.rounds, args.games_per_round,
                                 profile, card, seating=roster.seating, seed=args.seed, address=base)
    seating = store.seating(1)
    cards = table_cards(args.cards, args.name, base, {int(k): v for k, v in tokens.items() if k != "director"},
                        seating)
    store.close()
    data = {"tournament": args.name, "db": args.db, "tables": args.tables, "rounds": args.rounds,
            "games_per_round": args.games_per_round, "players": len(roster.names),
            "seating": {str(t): s for t, s in seating.items()}, "director_token": tokens["director"],
            "table_tokens": {k: v for k, v in tokens.items() if k != "director"}, "cards": str(cards), "url": base,
            "warnings": warnings}
    text = (f"{args.name}: {len(roster.names)} players at {args.tables} tables, {args.rounds} rounds of "
            f"{args.games_per_round} games ({args.db})\nRound 1 seating:\n{seating_text(seating)}\n"
            f"Director's token (keep it to yourself): {tokens['director']}\nTable tokens:\n"
            + "\n".join(f"  table {k:>3}: {v}" for k, v in tokens.items() if k != "director")
            + f"\nTable cards with QR codes: {cards} (for {base})\n"
            f"Start the pages: mahj tournament serve --db {args.db}")
    _warn(args, warnings)
    return _out(args, data, text)


def font_warnings(texts: list[str]) -> list[str]:
    """What this computer lacks to print ``texts`` (names) on the PDFs: the package to install, per script."""
    from assistant.tournament.fonts import choose

    return choose(texts).warnings


def address_warnings(url: str) -> list[str]:
    """What would stop the tables reaching the server at ``url`` (the cards' address), checked from here."""
    from assistant.tournament.address import AddressError, warnings_for

    try:
        return warnings_for(url)
    except AddressError as exc:
        raise Failed(str(exc)) from None


def run_round_next(args: argparse.Namespace) -> int:
    from assistant.tournament.rounds import close_round

    store = _store(args)
    try:
        closed = close_round(store, force=args.force, who=args.who)
        seating = {} if closed.finished else store.seating(closed.round)
    finally:
        store.close()
    forced = f" ({closed.unfinished} unreported game(s) scored as not finished in time)" if closed.unfinished else ""
    text = (f"round {closed.closed} closed{forced}: the tournament is over (mahj tournament standings)"
            if closed.finished else f"round {closed.closed} closed{forced}; round {closed.round} seating:\n"
            f"{seating_text(seating)}")
    return _out(args, closed.to_json() | {"seating": {str(t): s for t, s in seating.items()}}, text)


def run_standings(args: argparse.Namespace) -> int:
    from assistant.tournament.sheets import STANDINGS_HEADER, standings_rows, write_rows

    store = _store(args)
    try:
        with store.reader.connect() as conn:  # one snapshot: the round and the standings agree
            rows, current = store.standings(conn), store.current_round(conn)
    finally:
        store.close()
    if args.csv:
        write_rows(sys.stdout, STANDINGS_HEADER, standings_rows(rows))
        return 0
    text = "\n".join(f"{r.place:>4}. {r.name:<30} {r.points:>6}  ({r.games} games, {r.wins} won)" for r in rows)
    return _out(args, {"round": current, "standings": [r.to_json() for r in rows]},
                f"{store.name}: standings in round {current}\n{text}")


def run_export(args: argparse.Namespace) -> int:
    from assistant.tournament.export import export

    store = _store(args)
    try:
        warnings = font_warnings([store.name, *store.players()])
        files = export(store, args.out)
    finally:
        store.close()
    _warn(args, warnings)
    return _out(args, {"files": [str(f) for f in files], "warnings": warnings},
                "wrote:\n" + "\n".join(f"  {f}" for f in files))


def run_token(args: argparse.Namespace) -> int:
    from assistant.tournament.address import host_of
    from assistant.tournament.sheets import scorer_url, table_cards

    warnings = address_warnings(args.url) if args.url else []  # a bad --url is refused before the token changes
    store = _store(args)
    try:
        token = store.renew_token(None if args.director else args.table)
    finally:
        store.close()
    if args.url and store.address and host_of(args.url) != host_of(store.address):
        warnings.append(f"the other cards carry {store.address}: the server answers to that name, to IP addresses "
                        f"and to this computer's own name, and refuses {host_of(args.url)} otherwise")
    base = args.url or store.address or default_url()
    data: dict[str, Any] = {"table": args.table, "token": token, "warnings": warnings}
    text = f"new token for {'the director' if args.director else f'table {args.table}'}: {token}"
    if args.table is not None:
        data["url"] = scorer_url(base, args.table, token)
        text += f"\n  {data['url']}"
        if args.cards:
            data["cards"] = str(table_cards(args.cards, store.name, base, {args.table: token}))
            warnings += font_warnings([store.name])
            text += f"\n  card: {data['cards']}"
    _warn(args, warnings)
    return _out(args, data, text)


def _warn(args: argparse.Namespace, warnings: list[str]) -> None:
    """Warnings go to stderr as text (with --json they are the output's "warnings")."""
    if not args.json:
        for line in warnings:
            print(f"warning: {line}", file=sys.stderr)


def run_serve(args: argparse.Namespace) -> int:
    from assistant.tournament.address import parse
    from assistant.tournament.connections import Limits
    from assistant.tournament.web import serve

    store = _store(args)
    port = args.port if args.port is not None else parse(store.address)[1] if store.address else DEFAULT_PORT
    try:
        return serve(store, args.host, port, public_standings=args.public_standings, as_json=args.json,
                     workers=args.workers, limits=Limits(args.request_timeout, args.per_address))
    finally:
        store.close()
