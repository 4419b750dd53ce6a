"""``mahj hand PHOTO``: a player's own rack from a photo (or ``--tiles``), with the card's advice (issue 44).

The photo is read by ``assistant.rack_reading.read_rack_photo`` (``TileModel.detect``, the call ``mahj detect``
makes, with the profile's learned set, on the photo decoded no larger than it needs), as the private seat pages
read it. The command prints the tiles in rack order
and sorted, marks every tile the model doubts with its likeliest alternatives (the advice then assumes the
likeliest reading, and says so), names counts no set can show, and gives ``engine.card.advice``: the nearest
lines, the Charleston passes, and with 14 tiles the verdict. ``mahj verify --photo`` uses the same reading
(``photo_hand``) for the verdict alone. What the advice means: docs/hand.md.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.commands.card import InputError, add_card_option, guarded, load_or_fail, parse_exposed, parse_hand
from assistant.console import report_error
from assistant.rack_doubt import UNSURE
from assistant.rack_reading import MAX_PHOTO_BYTES, RackReading, RackTile
from engine.card.advice import (
    BLIND_PASSES,
    PASSES,
    HandAdvice,
    LineAdvice,
    PassAdvice,
    advise,
    advise_pass,
    advise_passes,
)
from engine.card.card import exposure_problem
from engine.tiles import JOKER, name_or_code, sort_key

#: The passes shown when none is named: one compulsory pass of three stands for all four (they are advised
#: alike), one blind pass for both, and the courtesy.
DEFAULT_PASSES = ("first-right", "first-left", "courtesy")


class PhotoError(ValueError):
    """A photo file that cannot be read (missing, too large, not an image): exit 1."""


@dataclass
class Hand:
    """The concealed tiles to advise, as given or as read from a photo (``reading``, with ``notes`` about it)."""

    tiles: list[str]
    reading: RackReading | None = None
    notes: list[str] = field(default_factory=list)
    tile_set: str = ""

    @property
    def doubtful(self) -> list[tuple[int, RackTile]]:
        """(place on the rack from 1, tile) of every tile read without enough certainty."""
        return [(i, t) for i, t in enumerate(self.reading.tiles, start=1) if t.doubtful] if self.reading else []

    def photo_json(self) -> dict[str, Any] | None:
        if self.reading is None:
            return None
        return {"tile_set": self.tile_set or None, "width": self.reading.width, "height": self.reading.height,
                "rack_order": [t.to_json() | {"place": i} for i, t in enumerate(self.reading.tiles, start=1)],
                "face_down": self.reading.face_down, "doubtful": [i for i, _ in self.doubtful],
                "notes": self.notes}


def add_photo_options(p: argparse.ArgumentParser) -> None:
    """The options that choose the model a photo is read with, as ``mahj detect`` has them."""
    p.add_argument("--profile", type=Path, help="profile TOML: its learned set (camera.tile_set) reads the photo")
    p.add_argument("--set", dest="set_name", default=None,
                   help="name of a set learned with `mahj setup tiles` (default: the profile's set, if any)")
    p.add_argument("--no-set", action="store_true", help="read with the shipped model, not the profile's set")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hand", help="read your rack from a photo (or --tiles) and advise it from the card: "
                                    "nearest lines, Charleston passes, Mah Jongg")
    p.add_argument("photo", type=Path, nargs="?", metavar="PHOTO", help="a photo of your rack, tiles facing you")
    p.add_argument("--tiles", metavar="TILES", help='your concealed tiles as text instead of a photo, e.g. '
                                                    '"2B 2B WD F J"')
    add_card_option(p)
    add_photo_options(p)
    p.add_argument("--seen", action="append", default=[], metavar="TILES",
                   help="tiles in view elsewhere (the floor, the others' exposures, dead tiles); repeatable")
    p.add_argument("--pass", dest="which", choices=PASSES, default=None,
                   help="the Charleston pass you are about to make (default: a pass of three, a blind pass and "
                        "the courtesy; none once you have exposed)")
    p.add_argument("--courtesy", type=int, choices=range(4), default=None, metavar="N",
                   help="courtesy pass: the number of tiles agreed with the player across (0-3)")
    p.add_argument("--top", type=int, default=5, help="how many nearest lines to show (default 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


@guarded
def run(args: argparse.Namespace) -> int:
    card = load_or_fail(args.card)
    exposed = parse_exposed(args.exposed)
    bad = exposure_problem(exposed)
    if bad:
        raise InputError(f"--exposed: {bad}")
    seen = parse_hand(args.seen, "--seen")
    if args.top < 0:
        raise InputError("--top must be 0 or more")
    if args.courtesy is not None and args.which not in (None, "courtesy"):
        raise InputError("--courtesy goes with --pass courtesy")
    if args.courtesy is not None:
        args.which = "courtesy"
    if exposed and (args.which or args.courtesy is not None):
        raise InputError("the Charleston is over once tiles are exposed: give no --pass with --exposed")
    hand = photo_hand(args, args.photo, args.tiles)
    if isinstance(hand, int):
        return hand
    advice = advise(card, hand.tiles, exposed, seen, top=args.top)
    passes = [] if exposed else _passes(card, hand.tiles, seen, args)
    if args.json:
        print(json.dumps({"photo": str(args.photo) if args.photo else None, **_json(hand, advice, passes)}))
    else:
        print(_text(args.photo, hand, advice, passes))
    return 0


def photo_hand(args: argparse.Namespace, photo: Path | None, tiles: str | None) -> Hand | int:
    """The hand from ``tiles`` (text) or ``photo`` (``mahj hand`` and ``mahj verify --photo``; ``args`` holds
    the photo options and ``json``). A photo that gives no hand (unreadable, too large, no tiles, most tiles
    unclear) is reported here, with what was read when there was something, and its exit status (1) returned
    instead."""
    if (photo is None) == (tiles is None):
        raise InputError("give a PHOTO of your rack, or --tiles (not both)")
    if tiles is not None:
        return Hand(parse_hand([tiles], "--tiles"))
    try:
        hand = read_hand(args, photo)
    except PhotoError as exc:
        return report_error(str(exc), json_mode=args.json, code=1)
    if not hand.tiles or hand.reading.mostly_unclear:
        said = f"{photo}: {' '.join(hand.notes)}"      # the photo named: several may be read one after another
        if args.json:
            return report_error(said, json_mode=True, code=1, photo=hand.photo_json())
        if hand.tiles:
            print(_tiles_text(photo, hand))
        return report_error(said, json_mode=False, code=1)
    return hand


def read_hand(args: argparse.Namespace, path: Path) -> Hand:
    """The rack in the photo at ``path`` read with the model ``mahj detect`` would use for these options. A photo
    that cannot be read or is too large raises PhotoError; one with no tiles gives an empty hand with a note."""
    # imported here: every mahj command loads this module, and only a photo needs the model and the session
    from assistant.profile import ProfileError, profile_tile_set
    from assistant.rack_reading import read_rack_photo
    from assistant.session import open_model
    from assistant.wiring import SetupError
    from vision.image_file import ImageFileError, image_bytes

    if args.no_set and args.set_name:
        raise InputError("--set and --no-set: give one (--no-set reads with the shipped model)")
    if path.is_file() and path.stat().st_size > MAX_PHOTO_BYTES:
        raise PhotoError(f"{path}: {path.stat().st_size / 2**20:.1f} MB, more than a rack photo may be "
                         f"({MAX_PHOTO_BYTES // 2**20} MB): save it smaller, e.g. 4000 x 3000 pixels as JPEG")
    try:
        data = image_bytes(path)
        tile_set = args.set_name or ("" if args.no_set else profile_tile_set(args.profile))
        model = open_model(tile_set)
        reading = read_rack_photo(model, data, str(path))   # as the seat page reads it
    except ImageFileError as exc:
        raise PhotoError(str(exc)) from None
    except (ProfileError, SetupError) as exc:
        raise InputError(str(exc)) from None
    return Hand([t.tile for t in reading.tiles], reading, reading.notes(), tile_set)


def _passes(card: Any, tiles: list[str], seen: list[str], args: argparse.Namespace) -> list[PassAdvice]:
    if sum(t != JOKER for t in tiles) == 0:
        return []
    if args.which:
        return [advise_pass(card, tiles, args.which, seen, args.courtesy)]
    return advise_passes(card, tiles, DEFAULT_PASSES, seen)


def _json(hand: Hand, advice: HandAdvice, passes: list[PassAdvice]) -> dict[str, Any]:
    out = {"read": hand.photo_json(), **advice.to_json(), "passes": [p.to_json() for p in passes]}
    del out["charleston"]   # the passes asked for are in "passes"
    return out


def _tiles_text(photo: Path | None, hand: Hand) -> str:
    """The tiles as read: rack order with doubtful ones marked ``?``, sorted, and what each doubt could be."""
    if hand.reading is None:
        return (f"your tiles ({len(hand.tiles)}): {' '.join(sorted(hand.tiles, key=sort_key))}\n"
                f"  in words:   {_in_words(hand.tiles)}")
    r = hand.reading
    where = f" with your set '{hand.tile_set}'" if hand.tile_set else ""
    out = [f"{photo}: {len(r.tiles)} tiles read{where}"
           + (f", {len(hand.doubtful)} doubtful (marked ?)" if hand.doubtful else "")]
    out.append("  rack order: " + " ".join(t.tile + ("?" if t.doubtful else "") for t in r.tiles))
    out.append("  sorted:     " + " ".join(sorted(hand.tiles, key=sort_key)))
    out.append("  in words:   " + _in_words(hand.tiles))
    for place, t in hand.doubtful:
        maybe = f", or perhaps {' / '.join(t.alts)}" if t.alts else ""
        why = f"; {t.why}" if t.why and t.why != UNSURE else ""
        out.append(f"  tile {place}: read as {t.tile} ({t.score:.0%} sure{why}){maybe}")
    out += [f"  note: {n}" for n in hand.notes]
    return "\n".join(out)


def _in_words(tiles: list[str]) -> str:
    """The sorted tiles as a screen reader should say them: "2 x Two Bam, Soap, 2 x Joker"."""
    counts = Counter(tiles)
    return ", ".join(f"{n} x {name_or_code(t)}" if n > 1 else name_or_code(t)
                     for t, n in sorted(counts.items(), key=lambda kv: sort_key(kv[0]))) or "none"


def _text(photo: Path | None, hand: Hand, advice: HandAdvice, passes: list[PassAdvice]) -> str:
    out = [_tiles_text(photo, hand)]
    if hand.doubtful:
        out.append("The advice below takes each doubtful tile as read: check them, and give --tiles with the right "
                   "ones if any is wrong.")
    if advice.exposures:
        out.append("exposed: " + "; ".join(" ".join(g) for g in advice.exposures))
    out += [f"IMPOSSIBLE: {p}" for p in advice.problems]
    if advice.total < 13:     # more than 14 is among the IMPOSSIBLE counts above
        out.append(f"{advice.total} tiles: a hand holds 13, or 14 after a pick (a tile missed by the photo?)")
    if not advice.possible:
        out.append("No line on the card can still be made: this hand is dead.")
    if advice.nearest:
        out.append("Nearest lines:")
        out += [_line_text(rank, a) for rank, a in enumerate(advice.nearest, start=1)]
    if advice.dead:
        out.append(f"dead: {len(advice.dead)} line{'s' if len(advice.dead) != 1 else ''} "
                   "(no longer has the tiles it needs, or your exposures rule it out)")
    for p in passes:
        out.append(f"Charleston, {_pass_name(p.which, len(passes) > 1)}: {p.reason}")
        if p.alternatives:
            out.append("  as good: " + "; ".join(" ".join(a) for a in p.alternatives[:4])
                       + (" ..." if len(p.alternatives) > 4 else ""))
        if p.by_count and p.which == "courtesy":
            out.append("  if fewer are agreed: " + "; ".join(f"{n}: {' '.join(t)}" for n, t in p.by_count.items()))
    out.append(_verdict_text(advice, hand))
    return "\n".join(out)


def _pass_name(which: str, standing_for_all: bool) -> str:
    """The pass's name; when every pass is shown, the first right stands for all four compulsory passes of three
    (they are advised alike) and the first left for both blind passes."""
    if standing_for_all and which not in BLIND_PASSES and which != "courtesy":
        return "a pass of three (first right, first across, second left, second across)"
    if standing_for_all and which in BLIND_PASSES:
        return "a blind pass (first left, last right)"
    return which.replace("-", " ")


def _line_text(rank: int, a: LineAdvice) -> str:
    s = a.suggestion
    need = ", ".join(f"{m.count}x {m.tile} ({'joker ok' if m.joker_ok else 'no joker'}, {m.unseen} live)"
                     for m in s.need) or "nothing: Mah Jongg"
    jokers = ("Jokers may stand in: " + " | ".join(" ".join(g) for g in a.joker_groups)
              if a.joker_groups else "no Jokers in this line (singles and pairs)")
    if a.jokers_used:
        jokers += f" (your {a.jokers_used} Joker{'s' if a.jokers_used != 1 else ''} there now)"
    return (f"  {rank}. {s.line.label} ({s.line.value}) {s.missing} missing: {need}\n"
            f"       {s.line.text}\n       {jokers}")


def _verdict_text(advice: HandAdvice, hand: Hand) -> str:
    """The verdict in a line or two: the nearest lines are printed above, so a miss is not listed again."""
    from assistant.commands.verify import describe

    v = advice.verdict
    if v is None:
        return f"Verdict: {advice.total} tiles; Mah Jongg needs 14."
    if v.mahjong:
        return "Verdict: " + describe(v) + ("\n  (if the doubtful tiles are as read)" if hand.doubtful else "")
    if v.reason:
        return f"Verdict: not Mah Jongg: {v.reason}"
    near = v.nearest[0] if v.nearest else None
    return "Verdict: not Mah Jongg" + (f" ({near.missing} tiles from {near.line.label})" if near else "")
