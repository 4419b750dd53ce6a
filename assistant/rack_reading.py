"""A player's own rack from a phone photo (issue 44, "my hand"): the tiles in rack order, the doubtful ones marked,
and the photo's own problems.

The photo is read by ``TileModel.detect``, the call ``mahj detect`` makes, with the model the profile's learned
set gives (``assistant.session.open_model``): a rack photo is one more still photo with square pixels, read
as it is and mirrored as every photo is (``vision.mirror_reading``). What this
module adds is what a hand needs: the order the tiles stand in (rows top to bottom, each left to right), the
tiles to ask about with their likeliest alternatives (never silently taken as read; which and why:
``assistant.rack_doubt``), and what to do about an empty photo, tiles seen from behind, or a photo of another
set. The counts no set can produce are ``engine.card.advice.count_problems``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from statistics import median
from typing import Any

from assistant.rack_doubt import SOAP_ASKED_AT, SOAP_OR_BACK, doubts
from engine.tiles import name_or_code, sort_key
from vision.image_file import MAX_PIXELS, declared_size, decode_image, orientation
from vision.table_colour import shows_table, table_colour

#: The most bytes a photo may have when it reaches the server. The page shrinks a photo to about 0.3-1 MB
#: before sending it; a phone's own 12-50 MP JPEG (4-25 MB) sent unshrunk still fits.
MAX_PHOTO_BYTES = 25 * 2**20
#: A photo is decoded at the largest reduction (a half, a quarter, an eighth) that keeps its long side at least
#: this. The detector reads a photo larger than 1024 px at 1024 first and a rack close-up smaller still
#: (vision/tile_sizes.py), so the page's 2048 px photo decoded at 1024 reads the same tiles in half the time: on
#: the held-out player's-eye photos enlarged to 2048 px, 0.982 read right from 1024 against 0.903 from 2048
#: (docs/my-hand.md).
READ_SIDE = 960
#: A plain White Dragon.
SOAP = "WD"
#: More than this share of a photo's tiles doubtful: the photo is likely of another set, or badly lit.
WRONG_SET_SHARE = 0.5
#: A box both narrower and narrower for its height (width over height) than this share of the medians of the
#: photo's boxes is not a tile's face: one set's tiles are one size and one shape. Both, so that neither a rack
#: photographed aslant (far tiles narrower, of the same shape) nor her exposures lying flat on the rack (as wide as
#: her standing tiles, but shorter) make a tile of hers look like no tile. On the player's-eye rack photos of the
#: set never trained on, the detector boxes book spines behind the rack as Bams, most of them surely; no true tile
#: of its 550, or of the Hong Kong racks' 827, is under 0.77 of its photo's median on either (docs/hand.md).
NARROWEST = 0.7


class PhotoRefused(ValueError):
    """A photo that is not read; the message is the sentence the player sees, ``status`` the HTTP status that
    says why (413 too large, 415 not an image, 429 too many)."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class RackTile:
    """One tile as read: its kind, how sure the classifier is, the likeliest other kinds, and whether to ask
    (``why``: the reason, ``assistant.rack_doubt``)."""

    tile: str
    score: float
    alts: tuple[str, ...] = ()
    doubtful: bool = False
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "name": name_or_code(self.tile), "score": round(self.score, 3),
                "alts": [{"tile": a, "name": name_or_code(a)} for a in self.alts], "doubtful": self.doubtful,
                "why": self.why}


@dataclass
class RackReading:
    """A photo's tiles in rack order; ``face_down``: tiles seen from behind (turned away from the camera)."""

    tiles: list[RackTile] = field(default_factory=list)
    face_down: int = 0
    width: int = 0
    height: int = 0

    @property
    def mostly_unclear(self) -> bool:
        """More than WRONG_SET_SHARE of four or more tiles doubtful: likely another set than the one learned."""
        doubtful = sum(t.doubtful for t in self.tiles)
        return len(self.tiles) >= 4 and doubtful > WRONG_SET_SHARE * len(self.tiles)

    def notes(self) -> list[str]:
        """What the player should hear about the photo itself (empty, turned tiles, another set?)."""
        out = []
        if not self.tiles:
            out.append("No tiles found in the photo. Hold the phone above your rack so the tile faces fill the "
                       "picture, in good light, and take it again.")
        if self.face_down:
            out.append(f"{self.face_down} tile{'s' if self.face_down > 1 else ''} seen from behind: turn "
                       f"{'them' if self.face_down > 1 else 'it'} to face the camera and take the photo again.")
        if self.mostly_unclear:
            doubtful = sum(t.doubtful for t in self.tiles)
            out.append(f"{doubtful} of {len(self.tiles)} tiles are unclear. Is this the set mahj learned at set-up "
                       "(`mahj setup tiles`)? Better light, or that set's photo, reads them surely.")
        return out


def too_large(size: int | None = None) -> PhotoRefused:
    """The refusal of a photo over MAX_PHOTO_BYTES: its size (``size`` bytes, None: not known, it came in pieces)
    and the limit."""
    said = f"is {size / 2**20:.1f} MB" if size is not None else "is larger than that"
    return PhotoRefused(f"The photo {said}; the most mahj reads is {MAX_PHOTO_BYTES // 2**20} MB. Take it again "
                        "with the Photograph button (the page makes it smaller).", 413)


def check_photo(data: bytes) -> None:
    """Refuse a photo too large to read, by its bytes or by the pixels its header announces, before decoding."""
    if len(data) > MAX_PHOTO_BYTES:
        raise too_large(len(data))
    size = declared_size(data)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise PhotoRefused(f"The photo is {size[0]} x {size[1]} pixels; the most mahj reads is "
                           f"{MAX_PIXELS // 1_000_000} million. Take it again with the Photograph button.", 413)


def rack_rows(boxes: list[tuple[float, float, float, float]]) -> list[list[int]]:
    """Indexes of ``boxes`` as the tiles stand, row by row: rows top to bottom, each left to right. Rows are split
    where the tiles' centres, taken top to bottom, jump by more than half a tile's height: a rack photographed
    aslant drifts a little from tile to tile and stays one row, while a second row lies a whole tile lower."""
    if not boxes:
        return []
    height = median(b[3] - b[1] for b in boxes)
    centre = [(b[1] + b[3]) / 2 for b in boxes]
    rows: list[list[int]] = []
    last = None
    for i in sorted(range(len(boxes)), key=lambda i: centre[i]):
        if last is None or centre[i] - last > height / 2:
            rows.append([])
        rows[-1].append(i)
        last = centre[i]
    return [sorted(row, key=lambda i: boxes[i][0]) for row in rows]


def tile_shaped(boxes: list[tuple[float, float, float, float]]) -> list[bool]:
    """For each box, whether it could be one of the photo's tiles: not both narrower and narrower for its height
    than NARROWEST of the medians of all the boxes. Where most boxes are not tiles the medians are theirs, and
    what is dropped is only narrower still."""
    if not boxes:
        return []
    width = [b[2] - b[0] for b in boxes]
    aspect = [(b[2] - b[0]) / max(b[3] - b[1], 1e-6) for b in boxes]
    usual_width, usual_aspect = median(width), median(aspect)
    return [w >= NARROWEST * usual_width or a >= NARROWEST * usual_aspect
            for w, a in zip(width, aspect, strict=True)]


def on_her_rack(box: tuple[float, float, float, float], tiles: list[tuple[float, float, float, float]]) -> bool:
    """Whether ``box`` stands beside one of her face-up ``tiles``: in its row (centres apart by less than half a
    tile's height) and less than a tile's width from it. With no face-up tile, every box is hers: a photo of
    her rack from behind."""
    if not tiles:
        return True
    cy = (box[1] + box[3]) / 2
    for t in tiles:
        width, height = t[2] - t[0], t[3] - t[1]
        gap = max(t[0] - box[2], box[0] - t[2], 0.0)
        if abs((t[1] + t[3]) / 2 - cy) < height / 2 and gap < width:
            return True
    return False


def rack_order(boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Indexes of ``boxes`` in reading order: ``rack_rows`` one after the other."""
    return [i for row in rack_rows(boxes) for i in row]


def read_rack(model: Any, image: Any) -> RackReading:
    """The rack in ``image`` (BGR) as ``model`` (a ``TileModel``) reads it through ``detect``, with the tiles to
    ask about marked (``assistant.rack_doubt``). The photo is also read mirrored (``vision.mirror_reading``): on
    racks of a set never trained on it puts a quarter fewer boxes where there is no tile. A box not shaped like a
    tile (``tile_shaped``) is dropped. A box read face down is hers only where it stands beside her tiles
    (``on_her_rack``; the wall's end behind the rack is not); one that may be a plain Soap (SOAP_ASKED_AT) stands
    on the rack as a Soap to ask about, the others are tiles to turn, but for those that show the table's own
    colour (``vision.table_colour``: the felt between two tiles stood apart)."""
    dets = model.detect(image, photo=True)
    read = [RackTile(d.tile, float(d.tile_score if d.tile_score is not None else d.score),
                     tuple(a for a in d.alts if a != d.tile), box=tuple(float(v) for v in d.box))
            for d in dets if d.face == "up" and d.tile]
    read = [t for t, shaped in zip(read, tile_shaped([t.box for t in read]), strict=True) if shaped]
    faces = [t.box for t in read]
    down = [d for d in dets if d.face != "up" and on_her_rack(d.box, faces)]
    soap = model.kind_probability(image, [d.box for d in down], SOAP)
    blank = [(d, float(p)) for d, p in zip(down, soap, strict=True) if p >= SOAP_ASKED_AT]
    read += [RackTile(SOAP, p, box=tuple(float(v) for v in d.box), why=SOAP_OR_BACK) for d, p in blank]
    to_turn = [d for d, p in zip(down, soap, strict=True) if p < SOAP_ASKED_AT]
    table = table_colour(image, [d.box for d in dets]) if to_turn else None     # only where a back may be a gap
    turned = sum(not shows_table(image, d.box, table) for d in to_turn)
    rows = rack_rows([t.box for t in read])
    tiles = [read[i] for row in rows for i in row]
    starts = [sum(len(r) for r in rows[:k]) for k in range(len(rows))]
    why = doubts(tiles, [list(range(s, s + len(r))) for s, r in zip(starts, rows, strict=True)])
    tiles = [replace(t, doubtful=bool(t.why) or i in why, why=t.why or why.get(i, "")) for i, t in enumerate(tiles)]
    return RackReading(tiles, turned, int(image.shape[1]), int(image.shape[0]))


def reduction(data: bytes) -> int:
    """How much smaller than its own size to decode the photo in ``data`` (1, 2, 4 or 8), by READ_SIDE. A photo
    that declares an EXIF turn is decoded whole: OpenCV turns it upright only then."""
    size = declared_size(data)
    if size is None or orientation(data) not in (None, 1):
        return 1
    factor = 1
    while factor < 8 and max(size) / (factor * 2) >= READ_SIDE:
        factor *= 2
    return factor


def read_rack_photo(model: Any, data: bytes, name: str) -> RackReading:
    """The rack in the image file ``data`` (``name``: where it came from, for a message), decoded no larger
    than the reading needs (``reduction``): the seat page's photos and ``mahj hand``'s. Where the reduced image
    shows no tile, or tiles smaller than the classifier's input (a rack photographed from afar), the photo is
    read again decoded whole, so that no detail the classifier would use is lost. Boxes and size are in the
    photo's own pixels. ImageFileError: not an image."""
    from vision.tile_model import CLASSIFIER_SIZE  # here: the runtime loads only when a photo is read

    factor = reduction(data)
    reading = read_rack(model, decode_image(data, name, factor))
    sides = [max(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in reading.tiles]
    if factor > 1 and (not sides or median(sides) < CLASSIFIER_SIZE):
        factor, reading = 1, read_rack(model, decode_image(data, name))
    if factor == 1:
        return reading
    tiles = [replace(t, box=tuple(v * factor for v in t.box)) for t in reading.tiles]
    return RackReading(tiles, reading.face_down, reading.width * factor, reading.height * factor)


def sorted_tiles(tiles: Iterable[str]) -> list[str]:
    """Tiles in the card's order: Bams, Craks, Dots 1-9, winds, dragons, Flowers, Jokers."""
    return sorted(tiles, key=sort_key)
