"""Each seat's private page (issue 44, "my hand"): a player photographs her own rack with her phone, and mahj
reads it, shows and speaks it to her alone, and advises from the card and what the camera sees in public.

Privacy is by construction: a seat's tiles live in this object's memory only. They are never put in the
display's snapshot, the journal, the table speaker or the console, and only a request that carries that seat's
token gets them back. Each token is 128 random bits (``secrets``), compared in constant time; a token shown to
the wrong person is replaced with ``reissue`` (the console's ``relink SEAT``, or the display's set-up panel) and
the old one stops working at once.

Reading is guarded against a phone gone wild: a photo larger than ``MAX_PHOTO_BYTES`` is refused from its
Content-Length (or as soon as the body passes the limit), one seat may send ``BURST`` photos at once and then one
every ``REFILL_S`` seconds, and photos are read one at a time so that the game's own pipeline keeps its share of
the machine.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant.display.hand_advice import PASS_WORDS, hand_advice
from assistant.profile import SEAT_NAMES
from assistant.rack_reading import (
    MAX_PHOTO_BYTES,
    PhotoRefused,
    RackReading,
    check_photo,
    read_rack_photo,
    sorted_tiles,
)
from engine.card.advice import count_problems
from engine.tiles import TILES, TileError, name_or_code, parse_tile

#: Photos a seat may send at once, and the seconds after which it may send one more (about 6 a minute).
BURST = 3
REFILL_S = 10.0


@dataclass
class SeatHand:
    """A seat's tiles as she last confirmed them: in rack order, each with its doubt; ``version`` counts changes."""

    tiles: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    version: int = 0
    read_ms: float = 0.0
    photo_px: tuple[int, int] = (0, 0)   # the photo as it arrived (the page shrinks it first)
    charleston: str | None = None   # the pass she is about to make (PASS_WORDS), for the pass advice
    courtesy: int | None = None     # the courtesy count agreed across, 0-3
    deal: int = 0                   # the deal these tiles belong to (the display's count of hands dealt)
    cleared: str = ""               # said once a new deal dropped her last hand, until she sends another


class Bucket:
    """A token bucket: ``BURST`` photos at once, one more every ``REFILL_S`` seconds."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.level = float(BURST)
        self.at = clock()

    def take(self) -> float:
        """0 if a photo may be read now (and counts it), else the seconds to wait."""
        now = self.clock()
        self.level = min(float(BURST), self.level + (now - self.at) / REFILL_S)
        self.at = now
        if self.level >= 1.0:
            self.level -= 1.0
            return 0.0
        return (1.0 - self.level) * REFILL_S


#: What her page says when a new deal drops the tiles of her last hand.
NEW_DEAL = ("A new hand was dealt: your tiles, corrections and advice from the last hand are cleared. "
            "Photograph your new rack.")
#: The public view of a hand not dealt yet on the table: nothing of it is face up anywhere.
NOTHING_PUBLIC = {"exposed": [], "seen": [], "hand_over": False}


def deal_of(snapshot: dict[str, Any]) -> tuple[int, int]:
    """(the deal on the table, the deal a hand read now belongs to): the same while a hand is played (or before
    the first deal, whose hand it will be), the next one once the hand is over. The camera cannot see a deal, so
    mahj takes the next game as dealt only at its first discard (assistant.pipeline): a rack photographed during
    its Charleston, while the table still shows the last hand as over, is already the next hand's and must
    survive that deal."""
    deal = int(snapshot.get("deal") or 0)
    over = (snapshot.get("window") or {}).get("state") == "over"
    return deal, deal + 1 if over else deal


def public_view(snapshot: dict[str, Any], seat: int) -> dict[str, Any]:
    """What the camera knows in public, from the display's snapshot: her own exposures (as tile codes), every
    tile face up elsewhere (the floor, the others' exposures), and whether the hand is over."""
    exposed: list[list[str]] = []
    seen: list[str] = []
    for s in snapshot.get("seats") or []:
        groups = [[t["tile"] for t in g] for g in s.get("exposures") or []]
        if s.get("seat") == seat:
            exposed = groups
        else:
            seen += [t for g in groups for t in g]
    seen += [f["tile"] for f in snapshot.get("floor") or [] for _ in range(int(f.get("count", 0)))]
    window = (snapshot.get("window") or {}).get("state")
    return {"exposed": exposed, "seen": seen, "hand_over": window == "over", "seq": snapshot.get("seq", 0)}


class SeatPages:
    """The four seats' tokens and private hands, and the work their pages ask for.

    ``model``: loads the tile model (the profile's learned set), called once, on first use or by ``warm``;
    ``card``: the card in play. ``snapshot`` (the display's latest public snapshot) and ``base_url`` are set by
    the ``DisplayServer`` that serves the pages."""

    def __init__(self, players: tuple[str, ...], model: Callable[[], Any] | None, card: Callable[[], Any] | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.players = players
        self.snapshot: Callable[[], dict[str, Any]] = dict  # the display's, once it serves these pages
        self._load_model = model
        self._model: Any = None
        self.card = card
        self.clock = clock
        self.base_url = ""
        self._tokens = [secrets.token_urlsafe(16) for _ in range(4)]
        self._hands = [SeatHand() for _ in range(4)]
        self._buckets = [Bucket(clock) for _ in range(4)]
        self._busy = [False] * 4
        self._lock = threading.Lock()        # tokens, hands, buckets
        self._read_lock = threading.Lock()   # one photo read at a time, whichever seat sent it
        self._model_lock = threading.Lock()
        self._warming = False
        self._answers: list[tuple[tuple, dict[str, Any]] | None] = [None] * 4   # per seat: (what it rests on, state)

    # --- tokens and links ------------------------------------------------------------------------------------

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is, or None; every seat's token is compared, in constant time."""
        found = None
        with self._lock:
            for seat, mine in enumerate(self._tokens):
                if hmac.compare_digest(token.encode(), mine.encode()):
                    found = seat
        return found

    def reissue(self, seat: int) -> str:
        """A new token for ``seat``; the old one opens nothing from now on. Returns the new link."""
        with self._lock:
            self._tokens[seat] = secrets.token_urlsafe(16)
            self._buckets[seat] = Bucket(self.clock)
        return self.link(seat)

    def link(self, seat: int) -> str:
        return f"{self.base_url}/seat/{self._tokens[seat]}/"

    def label(self, seat: int) -> str:
        name = self.players[seat] if seat < len(self.players) else ""
        return f"{SEAT_NAMES[seat]} ({name})" if name and name != SEAT_NAMES[seat] else SEAT_NAMES[seat]

    def links(self) -> list[dict[str, Any]]:
        """Every seat's link and QR code (SVG), for the console, the display's set-up panel and the print sheet."""
        from assistant.qr import qr_svg

        return [{"seat": s, "label": self.label(s), "url": self.link(s),
                 "qr_svg": qr_svg(self.link(s), f"QR code of {self.label(s)}'s private page")} for s in range(4)]

    # --- reading ----------------------------------------------------------------------------------------------

    def model(self) -> Any:
        with self._model_lock:
            if self._model is None:
                if self._load_model is None:
                    raise PhotoRefused("Photos cannot be read here: this display has no tile model.", 503)
                try:
                    self._model = self._load_model()
                except Exception as exc:  # a missing learned set, a broken model file: said on her page
                    raise PhotoRefused(f"The table cannot read photos now: {exc}", 503) from None
            return self._model

    def warm(self) -> None:
        """Start loading the tile model on a daemon thread, once: called when a phone opens her page, so that
        the model is ready by the time her photo arrives, and costs nothing at a table where nobody uses one. (The
        pipeline's own model is not shared: its detector's buffers are not for two threads at once.)"""
        with self._lock:
            if self._warming:
                return
            self._warming = True

        def load() -> None:
            try:
                self.model()
            except PhotoRefused:  # the first photo says what is wrong, on the page
                pass
        threading.Thread(target=load, name="seat-model", daemon=True).start()

    def admit(self, seat: int) -> None:
        """Count a photo against the seat's allowance, or refuse it (PhotoRefused, HTTP 429 at the route)."""
        with self._lock:
            if self._busy[seat]:
                raise PhotoRefused("One photo at a time: mahj is still reading your last one.", 429)
            wait = self._buckets[seat].take()
            if wait > 0:
                raise PhotoRefused(f"Too many photos from this phone: wait {wait:.0f} s and take it again.", 429)
            self._busy[seat] = True

    def release(self, seat: int) -> None:
        """The seat's photo is read (or refused): she may send the next one."""
        with self._lock:
            self._busy[seat] = False

    def read_photo(self, seat: int, data: bytes) -> dict[str, Any]:
        """Read a photo sent by ``seat`` (its bytes) and keep it as her hand; returns her page's state without the
        advice (``advice_pending``), so that her tiles are said without waiting for it: her page asks for it
        next. ``read_ms``: decoding and reading the photo. PhotoRefused: the sentence for the page (too big, not
        an image)."""
        from vision.image_file import ImageFileError, declared_size, decode_image

        check_photo(data)
        try:
            if declared_size(data) is None:
                # No image header Pillow knows: decoded now, so that what is no image is refused as such even
                # while the tile model is still loading (or missing).
                decode_image(data, "The photo", 8)
            model = self.model()
            start = time.perf_counter()
            with self._read_lock:
                reading = read_rack_photo(model, data, "The photo")
        except ImageFileError as exc:
            said = str(exc).split(", which mahj")[0].split(": copy it")[0]
            raise PhotoRefused(f"{said}. Take a photo of your rack with the Photograph button (JPEG or PNG).",
                               415) from None
        return self._keep(seat, reading, (time.perf_counter() - start) * 1000.0)

    def _keep(self, seat: int, reading: RackReading, read_ms: float) -> dict[str, Any]:
        deal, owner = deal_of(self.snapshot())
        with self._lock:
            hand = self._hand(seat, deal)
            if owner != hand.deal:    # her new rack, photographed once the last hand ended
                hand.deal, hand.charleston, hand.courtesy = owner, None, None
            hand.cleared = ""
            hand.tiles = [t.to_json() for t in reading.tiles]
            hand.notes = reading.notes()
            hand.version += 1
            hand.read_ms = read_ms
            hand.photo_px = (reading.width, reading.height)
        return self.state(seat, advise=False)

    def set_tiles(self, seat: int, body: Any) -> dict[str, Any]:
        """Her corrected hand: ``{"tiles": [{"tile": code, "doubtful": bool}, ...], "deal": n}`` in rack order (a
        tile she picked from the grid is no longer doubtful). A correction made to the hand of an earlier deal
        (``deal``: the one her page showed) is not applied: that hand was dropped, and her state says so.
        ValueError: a body the page would never send."""
        if not isinstance(body, dict) or not isinstance(body.get("tiles"), list) or len(body["tiles"]) > 40:
            raise ValueError("tiles must be a list of at most 40 tiles")
        shown = body.get("deal")
        if shown is not None and (not isinstance(shown, int) or isinstance(shown, bool) or shown < 0):
            raise ValueError("deal must be the number of the deal the page showed")
        tiles = []
        for i, t in enumerate(body["tiles"]):
            if not isinstance(t, dict):
                raise ValueError(f"tile {i + 1}: must be an object with a tile code")
            try:
                code = parse_tile(str(t.get("tile", "")))
            except TileError as exc:
                raise ValueError(f"tile {i + 1}: {exc}") from None
            doubtful = t.get("doubtful") is True
            alts = [a for a in t.get("alts") or [] if isinstance(a, dict) and a.get("tile") in TILES][:4]
            why = t.get("why") if doubtful and isinstance(t.get("why"), str) else ""
            tiles.append({"tile": code, "name": name_or_code(code), "doubtful": doubtful, "why": why[:200],
                          "score": float(t["score"]) if isinstance(t.get("score"), int | float) else 1.0,
                          "alts": [{"tile": a["tile"], "name": name_or_code(a["tile"])} for a in alts]})
        deal, owner = deal_of(self.snapshot())
        with self._lock:
            hand = self._hand(seat, deal)
            if shown is None or shown == hand.deal:
                if not hand.tiles:        # typed in from nothing: hers for the deal a photo now would be
                    hand.deal = owner
                hand.cleared = ""
                hand.tiles = tiles
                hand.notes = [n for n in hand.notes if "No tiles found" not in n] if tiles else hand.notes
                hand.version += 1
        return self.state(seat)

    def set_pass(self, seat: int, body: Any) -> dict[str, Any]:
        """The Charleston pass she is about to make (``{"pass": name or null, "courtesy": 0-3 or null}``), for the
        pass advice. ValueError: a body the page would never send."""
        which = body.get("pass") if isinstance(body, dict) else None
        courtesy = body.get("courtesy") if isinstance(body, dict) else None
        if which is not None and (not isinstance(which, str) or which not in PASS_WORDS):
            raise ValueError(f"pass must be one of {', '.join(PASS_WORDS)}, or null (no pass)")
        if courtesy is not None and (not isinstance(courtesy, int) or isinstance(courtesy, bool)
                                     or not 0 <= courtesy <= 3):
            raise ValueError("courtesy must be 0, 1, 2 or 3 (or null: not agreed yet)")
        deal, _ = deal_of(self.snapshot())
        with self._lock:
            hand = self._hand(seat, deal)
            hand.charleston, hand.courtesy = which, courtesy if which == "courtesy" else None
            hand.version += 1
        return self.state(seat)

    def clear(self, seat: int) -> dict[str, Any]:
        deal, _ = deal_of(self.snapshot())
        with self._lock:
            self._hands[seat] = SeatHand(version=self._hands[seat].version + 1, deal=deal)
        return self.state(seat)

    def _hand(self, seat: int, deal: int) -> SeatHand:
        """Her hand, dropped first if it belongs to a deal before ``deal`` (the table's): the private hand is one
        deal's, and its tiles, corrections, pass and advice mean nothing in the next. A hand read before mahj saw
        any deal (``deal`` 0) is the first one's. Call with the lock held."""
        hand = self._hands[seat]
        if hand.deal < deal:
            if hand.deal > 0 and (hand.tiles or hand.notes or hand.charleston):
                hand = self._hands[seat] = SeatHand(version=hand.version + 1, deal=deal, cleared=NEW_DEAL)
            else:
                hand.deal = deal
        return hand

    # --- her page's state -------------------------------------------------------------------------------------

    def state(self, seat: int, advise: bool = True) -> dict[str, Any]:
        """Her page: her tiles (rack order and sorted), what to check, and the advice once nothing is in doubt
        (``advise`` False: not yet, ``advice_pending`` says whether it will come)."""
        snapshot = self.snapshot()
        deal, _ = deal_of(snapshot)
        with self._lock:
            hand = self._hand(seat, deal)
            tiles = [dict(t) for t in hand.tiles]
            notes, version, read_ms, photo_px = list(hand.notes), hand.version, hand.read_ms, hand.photo_px
            charleston, courtesy, mine, cleared = hand.charleston, hand.courtesy, hand.deal, hand.cleared
        card = self.card() if self.card is not None else None
        basis = (version, snapshot.get("seq", 0), snapshot.get("published_ms"), id(card))
        cached = self._answers[seat]
        if advise and cached is not None and cached[0] == basis:  # a page's poll while nothing changed: no advice again
            return cached[1]
        # A rack of the next hand, read while the table still shows the last: nothing of the last hand counts.
        public = public_view(snapshot, seat) if mine <= deal else NOTHING_PUBLIC | {"seq": snapshot.get("seq", 0)}
        codes = [t["tile"] for t in tiles]
        problems = count_problems(codes, public["exposed"], public["seen"])
        doubts = sum(t["doubtful"] for t in tiles)
        advice = None
        advice_ms = 0.0
        ready = bool(tiles) and not doubts and card is not None
        if ready and advise:
            start = time.perf_counter()
            advice = hand_advice(card, codes, public["exposed"], public["seen"], charleston, courtesy)
            advice_ms = (time.perf_counter() - start) * 1000.0
        answer = {"seat": seat, "label": self.label(seat), "version": version, "tiles": tiles,
                  "sorted": [{"tile": c, "name": name_or_code(c)} for c in sorted_tiles(codes)],
                  "notes": notes, "problems": problems, "doubts": doubts, "read_ms": round(read_ms, 1),
                  "photo_px": list(photo_px),
                  "exposed": [[{"tile": c, "name": name_or_code(c)} for c in g] for g in public["exposed"]],
                  "seen": len(public["seen"]), "hand_over": public["hand_over"], "seq": public["seq"],
                  "deal": mine, "next_hand": mine > deal, "cleared": cleared,
                  "advice": advice, "advice_ms": round(advice_ms, 1), "advice_pending": ready and not advise,
                  "kinds": [{"tile": c, "name": name_or_code(c)} for c in TILES],
                  "pass": charleston, "courtesy": courtesy,
                  "passes": [{"pass": k, "words": w} for k, w in PASS_WORDS.items()],
                  "max_bytes": MAX_PHOTO_BYTES}
        if advise:
            self._answers[seat] = (basis, answer)
        return answer


def tell_links(pages: SeatPages, say: Callable[..., None], listens_on: str, seats: list[int] | None = None,
               qr: bool = True) -> None:
    """Each seat's link, and its QR code, through ``say(text, **data)`` (the console's ``text``): at start-up
    and when the console asks (``link SEAT``). A display that listens on this computer only cannot be reached
    from a phone: that is said, with the setting that changes it."""
    from assistant.qr import qr_text

    if listens_on in ("127.0.0.1", "localhost", "::1"):
        say("private seat pages: phones cannot open them while the display listens on this computer only; set "
            'display.host = "0.0.0.0" in the profile (and a display.token) to let phones on this network in')
    for seat in range(4) if seats is None else seats:
        url = pages.link(seat)
        say(f"{pages.label(seat)}'s private page (scan it with her phone; `relink {SEAT_NAMES[seat].lower()}` "
            f"if someone else saw it): {url}", seat=seat, seat_url=url)
        if qr:
            say(qr_text(url), seat=seat)
