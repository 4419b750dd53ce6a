"""The private seat pages (issue 44) over real HTTP: tokens, photo reading, corrections, limits and privacy.

The phone's side (the page itself) is tested in Chromium in tests/test_my_hand_browser.py; here every request is
made as a phone would, to a DisplayServer on a free port, from the machine's LAN address where one exists.
"""

from __future__ import annotations

import http.client
import json
import re
import struct
import urllib.error
import urllib.request
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.display import DisplayServer, TableView
from assistant.display.seats import BURST, SeatPages, public_view
from assistant.rack_doubt import SOAP_ASKED_AT, SOAP_OR_BACK
from assistant.rack_reading import (
    MAX_PHOTO_BYTES,
    NARROWEST,
    PhotoRefused,
    on_her_rack,
    rack_order,
    read_rack,
    tile_shaped,
)
from assistant.tournament.address import lan_address
from engine.card import SAMPLE_CARD, load_card
from vision.table_colour import shows_table, table_colour
from vision.tile_model import Detection, TileModel

RACK = Path(__file__).parent / "fixtures" / "my_hand" / "rack.jpg"
#: The fixture's tiles left to right (datasets/synth/rack_photo.py rendered it from this list).
RACK_TILES = "WD 3B 3B 4B 5B 2C 2C 2C 7D 8D 9D N J J".split()
TOKEN = "table-token-for-seats"


def call(url: str, body: bytes | dict | None = None, token: str = "", ctype: str = "application/json",
         method: str | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    headers = {"Content-Type": ctype} | ({"Authorization": f"Bearer {token}"} if token else {})
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            text = res.read()
            return res.status, json.loads(text) if res.headers.get_content_type() == "application/json" else {
                "text": text.decode()}
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class FakeModel:
    """A model that finds the given detections, to test what the page makes of doubt and order; ``soap``: the
    chance of a Soap it gives a face-down box (by its box), none where not given."""

    def __init__(self, dets: list[Detection], soap: dict[tuple[float, ...], float] | None = None) -> None:
        self.dets = dets
        self.soap = soap or {}

    def detect(self, image: np.ndarray, photo: bool = False) -> list[Detection]:
        return self.dets

    def kind_probability(self, image: np.ndarray, boxes: list, code: str) -> np.ndarray:
        assert code == "WD"
        return np.array([self.soap.get(tuple(b), 0.0) for b in boxes])


@pytest.fixture(scope="module")
def model() -> TileModel:
    return TileModel.load()


@pytest.fixture()
def table(model):
    """A display on every interface with seat pages; yields (server, pages, view, base URL from the LAN)."""
    view = TableView(("Ada", "Bob", "Cy", "Di"))
    card = load_card(SAMPLE_CARD)
    pages = SeatPages(view.players, model=lambda: model, card=lambda: card)
    srv = DisplayServer(host="0.0.0.0", port=0, token=TOKEN, initial=view.snapshot(), seats=pages).start()
    host = lan_address() or "127.0.0.1"
    try:
        yield srv, pages, view, f"http://{host}:{srv.port}"
    finally:
        srv.stop()


def seat_url(pages: SeatPages, seat: int) -> str:
    """The seat's link as printed, path only (the host in it is the LAN address the test also uses)."""
    return re.sub(r"^http://[^/]+", "", pages.link(seat))


def test_a_rack_photo_comes_back_in_rack_order_sorted_and_advised(table):
    srv, pages, _, base = table
    assert pages.link(0).startswith(f"http://{lan_address() or '127.0.0.1'}:{srv.port}/seat/")
    status, page = call(base + seat_url(pages, 0))
    assert status == 200 and "Photograph my rack" in page["text"]
    status, got = call(base + seat_url(pages, 0) + "api/photo", RACK.read_bytes(), ctype="image/jpeg")
    assert status == 200, got
    assert [t["tile"] for t in got["tiles"]] == RACK_TILES
    assert [t["tile"] for t in got["sorted"]] == "3B 3B 4B 5B 2C 2C 2C 7D 8D 9D N WD J J".split()
    assert got["doubts"] == 0 and got["problems"] == [] and got["label"] == "East (Ada)"
    # Her tiles come back first; the advice is worked out when her page asks for it next.
    assert got["advice"] is None and got["advice_pending"] is True
    got = call(base + seat_url(pages, 0) + "api/state")[1]
    assert got["advice_pending"] is False and got["version"] == 1
    advice = got["advice"]
    assert advice["tiles"] == 14 and advice["jokers"] == 2 and advice["lines"]
    assert advice["verdict"] is not None and advice["verdict"]["mahjong"] is False
    assert got["advice_ms"] < 300


def test_a_seat_token_opens_its_own_page_and_nothing_else_and_never_another_seats_hand(table):
    _, pages, _, base = table
    status, _ = call(base + seat_url(pages, 0) + "api/photo", RACK.read_bytes(), ctype="image/jpeg")
    assert status == 200
    status, other = call(base + seat_url(pages, 1) + "api/state")
    assert status == 200 and other["tiles"] == [] and other["advice"] is None and other["label"] == "South (Bob)"
    seat_token = seat_url(pages, 0).split("/")[2]
    # A seat's token is not the table's: not the display, not its state, not the links of the others.
    for path in ("/", "/api/state", "/api/seats", "/seats/print"):
        assert call(base + path + f"?token={seat_token}")[0] == 403, path
        assert call(base + path, token=seat_token)[0] == 403, path
    assert call(base + "/api/correction", {"action": "undo"}, token=seat_token)[0] == 403
    # A made-up token, or one a letter off, opens nothing.
    for bad in ("x" * len(seat_token), seat_token[:-1] + ("A" if seat_token[-1] != "A" else "B")):
        assert call(base + f"/seat/{bad}/api/state")[0] == 404
        assert call(base + f"/seat/{bad}/")[0] == 404


def test_nothing_public_shows_a_private_tile(table):
    """The display's snapshot (what its page, state and events show, the announcement included) is the same
    before and after a seat's photo and correction; the journal and the speaker: see the test after this one."""
    srv, pages, view, base = table
    before = call(base + f"/api/state?token={TOKEN}")[1]
    call(base + seat_url(pages, 2) + "api/photo", RACK.read_bytes(), ctype="image/jpeg")
    call(base + seat_url(pages, 2) + "api/tiles", {"tiles": [{"tile": "GD"}] * 3})
    after = call(base + f"/api/state?token={TOKEN}")[1]
    for snap in (before, after):
        snap.pop("published_ms", None)
    assert after == before


def test_a_stolen_link_is_reissued_and_the_old_one_stops_at_once(table):
    _, pages, _, base = table
    old = seat_url(pages, 3)
    assert call(base + old + "api/state")[0] == 200
    assert call(base + "/api/seats/reissue", {"seat": 3})[0] == 403          # the table's token is needed
    status, got = call(base + "/api/seats/reissue", {"seat": 3}, token=TOKEN)
    assert status == 200 and "old one no longer works" in got["message"]
    assert call(base + old + "api/state")[0] == 404
    assert call(base + old)[0] == 404
    new = seat_url(pages, 3)
    assert new != old and call(base + new + "api/state")[0] == 200
    listed = call(base + "/api/seats", token=TOKEN)[1]["seats"]
    assert [s["url"] for s in listed] == [pages.link(s) for s in range(4)]
    assert all(s["qr_svg"].startswith("<svg") for s in listed)
    sheet = call(base + f"/seats/print?token={TOKEN}")[1]["text"]
    assert all(pages.link(s) in sheet for s in range(4))


def test_bad_photos_are_refused_with_a_sentence_and_the_next_photo_is_read(table):
    _, pages, _, base = table
    url = base + seat_url(pages, 1) + "api/photo"
    status, got = call(url, b"%PDF-1.4 not a photo at all", ctype="application/pdf")
    assert status == 415 and "a PDF" in got["error"] and "Photograph button" in got["error"]
    status, got = call(url, b"", ctype="image/jpeg")
    assert status == 415 and "empty" in got["error"]
    # Huge: refused from its Content-Length, before a byte of it is read.
    req = urllib.request.Request(url, data=b"x" * 16, method="POST",
                                 headers={"Content-Type": "image/jpeg", "Content-Length": str(MAX_PHOTO_BYTES + 1)})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 413 and f"{MAX_PHOTO_BYTES // 2**20} MB" in json.loads(err.value.read())["error"]
    # Huge without a Content-Length (sent in chunks): refused once it passes the limit.
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
    conn.request("POST", seat_url(pages, 1) + "api/photo", body=(b"\xff" * 2**20 for _ in range(27)),
                 headers={"Content-Type": "image/jpeg"}, encode_chunked=True)
    answer = conn.getresponse()
    assert answer.status == 413
    assert "larger than that; the most mahj reads is 25 MB" in json.loads(answer.read())["error"]
    conn.close()
    pages._buckets[1].level = float(BURST)  # noqa: SLF001 -- the allowance is tested on its own below
    # A small file whose header claims too many pixels: refused before decoding, with the limit.
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    huge = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 40000, 40000, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(999))) + chunk(b"IEND", b""))
    status, got = call(url, huge, ctype="image/png")
    assert status == 413 and "40000 x 40000" in got["error"] and "210 million" in got["error"]
    pages._buckets[1].level = float(BURST)  # noqa: SLF001 -- the allowance is tested on its own below
    blank = cv2.imencode(".jpg", np.full((600, 800, 3), 90, np.uint8))[1].tobytes()
    status, got = call(url, blank, ctype="image/jpeg")
    assert status == 200 and got["tiles"] == [] and "No tiles found" in got["notes"][0]


def test_a_flood_of_photos_is_limited_and_said_so_without_touching_the_other_seats(table):
    _, pages, _, base = table
    blank = cv2.imencode(".jpg", np.full((60, 80, 3), 90, np.uint8))[1].tobytes()
    codes = [call(base + seat_url(pages, 0) + "api/photo", blank, ctype="image/jpeg") for _ in range(BURST + 2)]
    assert [c for c, _ in codes[:BURST]] == [200] * BURST
    assert all(c == 429 and "Too many photos" in g["error"] and "wait" in g["error"] for c, g in codes[BURST:])
    assert call(base + seat_url(pages, 1) + "api/photo", RACK.read_bytes(), ctype="image/jpeg")[0] == 200


def test_doubtful_tiles_are_marked_with_their_alternatives_never_taken_silently(table):
    _, pages, _, base = table
    box = (10.0, 10.0, 50.0, 70.0)
    pages._model = FakeModel([  # noqa: SLF001 -- a model whose doubt is known
        Detection((60.0, 10.0, 100.0, 70.0), "up", "2C", 0.9, 0.41, ("2C", "2D", "2B")),
        Detection(box, "up", "5B", 0.9, 0.99, ("5B",)),
        Detection((110.0, 12.0, 150.0, 72.0), "down", None, 0.8)])
    blank = cv2.imencode(".jpg", np.full((60, 80, 3), 90, np.uint8))[1].tobytes()
    got = call(base + seat_url(pages, 2) + "api/photo", blank, ctype="image/jpeg")[1]
    assert [(t["tile"], t["doubtful"]) for t in got["tiles"]] == [("5B", False), ("2C", True)]
    assert [a["tile"] for a in got["tiles"][1]["alts"]] == ["2D", "2B"]
    assert got["tiles"][1]["why"] == "mahj is not sure of it" and got["tiles"][0]["why"] == ""
    assert got["doubts"] == 1 and got["advice"] is None        # no advice on a guess
    assert any("seen from behind" in n for n in got["notes"])
    # Her answer (the tile, then its kind) ends the doubt.
    fixed = call(base + seat_url(pages, 2) + "api/tiles", {"tiles": [{"tile": "5B"}, {"tile": "2D"}]})[1]
    assert fixed["doubts"] == 0 and [t["tile"] for t in fixed["tiles"]] == ["5B", "2D"]
    assert fixed["advice"] is not None and "2 tiles: a hand holds 13, or 14" in fixed["advice"]["notes"][0]


def test_a_back_that_may_be_a_blank_soap_is_asked_about_in_its_place_not_told_to_turn(table):
    _, pages, _, base = table
    maybe_soap, back = (60.0, 10.0, 100.0, 70.0), (160.0, 12.0, 200.0, 72.0)
    pages._model = FakeModel([  # noqa: SLF001 -- a model whose Soap chances are known
        Detection((10.0, 10.0, 50.0, 70.0), "up", "5B", 0.9, 0.99, ("5B",)),
        Detection(maybe_soap, "down", None, 0.8),
        Detection((110.0, 10.0, 150.0, 70.0), "up", "6B", 0.9, 0.99, ("6B",)),
        Detection(back, "down", None, 0.8)], soap={maybe_soap: SOAP_ASKED_AT + 0.05, back: SOAP_ASKED_AT - 0.05})
    blank = cv2.imencode(".jpg", np.full((60, 80, 3), 90, np.uint8))[1].tobytes()
    got = call(base + seat_url(pages, 1) + "api/photo", blank, ctype="image/jpeg")[1]
    assert [(t["tile"], t["doubtful"]) for t in got["tiles"]] == [("5B", False), ("WD", True), ("6B", False)]
    assert got["tiles"][1]["why"] == SOAP_OR_BACK and got["doubts"] == 1
    assert [n for n in got["notes"] if "seen from behind" in n] == [
        "1 tile seen from behind: turn it to face the camera and take the photo again."]


def test_a_box_narrower_than_the_racks_tiles_is_no_tile_and_is_dropped():
    """A book spine behind the rack, read surely as a Bam, is narrower than any tile and narrower for its height:
    dropped. A tile lying across (wider) and the tiles themselves stay, in rack order."""
    def box(x: float, w: float, h: float = 60.0) -> tuple[float, float, float, float]:
        return (x, 100.0, x + w, 100.0 + h)

    spine = box(95.0, 40 * NARROWEST - 2)
    model = FakeModel([Detection(box(0.0, 40.0), "up", "2B", 0.9, 0.99, ("2B",)),
                       Detection(spine, "up", "4B", 0.9, 0.99, ("4B",)),
                       Detection(box(45.0, 40.0), "up", "3B", 0.9, 0.99, ("3B",)),
                       Detection(box(140.0, 60.0, 42.0), "up", "J", 0.9, 0.99, ("J",)),
                       Detection(box(205.0, 40.0 * NARROWEST + 2), "up", "5B", 0.9, 0.99, ("5B",))])
    got = read_rack(model, np.zeros((300, 400, 3), np.uint8))
    assert [t.tile for t in got.tiles] == ["2B", "3B", "J", "5B"]
    assert tile_shaped([spine, box(0.0, 40.0), box(45.0, 40.0)]) == [False, True, True]
    assert tile_shaped([]) == []
    # Her standing tiles under more exposures lying flat (as wide, far shorter), and a rack seen aslant (the far
    # tiles narrower, of one shape): every tile is kept.
    standing = [box(42.0 * i, 40.0) for i in range(5)]
    flat = [(42.0 * i, 20.0, 42.0 * i + 40, 45.0) for i in range(9)]
    assert all(tile_shaped(standing + flat))
    aslant = [box(45.0 * i, 40.0 - 3 * i, 60.0 - 4.5 * i) for i in range(7)]
    assert all(tile_shaped(aslant))


FELT, IVORY, BACK = (60, 110, 40), (215, 230, 235), (40, 150, 210)   # BGR: green felt, faces, yellow backs


def _photo(painted: list[tuple[tuple[float, float, float, float], tuple[int, int, int]]]) -> np.ndarray:
    """A 400 x 300 photo of felt with each box painted its colour."""
    img = np.empty((300, 400, 3), np.uint8)
    img[:] = FELT
    for (x0, y0, x1, y1), colour in painted:
        img[int(y0):int(y1), int(x0):int(x1)] = colour
    return img


def test_only_a_back_standing_beside_her_tiles_is_hers_to_turn():
    """The wall's end on the table behind her rack is boxed face down too: it is not hers, and she is not told to
    turn it. A back in her row is. A photo of nothing but backs is her rack from behind."""
    rack = [(40.0 * i, 200.0, 40.0 * i + 38, 260.0) for i in range(5)]
    turned, wall = (200.0, 202.0, 238.0, 262.0), (120.0, 20.0, 158.0, 80.0)
    reads = [Detection(b, "up", code, 0.9, 0.99, (code,)) for b, code in zip(rack, "2B 3B 4B 5B 6B".split(),
                                                                            strict=True)]
    photo = _photo([(b, IVORY) for b in rack] + [(turned, BACK), (wall, BACK)])
    got = read_rack(FakeModel(reads + [Detection(turned, "down", None, 0.8), Detection(wall, "down", None, 0.8)]),
                    photo)
    assert got.face_down == 1 and len(got.tiles) == 5
    assert on_her_rack(turned, rack) and not on_her_rack(wall, rack)
    assert not on_her_rack((320.0, 200.0, 358.0, 260.0), rack)     # a tile's width and more away: not in her row
    backs = FakeModel([Detection(b, "down", None, 0.8) for b in rack])
    assert read_rack(backs, _photo([(b, BACK) for b in rack])).face_down == 5


def test_the_felt_between_tiles_stood_apart_is_no_tile_to_turn():
    """The detector boxes the felt between two of her tiles stood apart as a back: its middle is the table's own
    colour, so she is not told to turn a tile that is not there. A back beside it, of its own colour, is hers."""
    left, gap, right = (0.0, 200.0, 38.0, 260.0), (40.0, 200.0, 78.0, 260.0), (80.0, 200.0, 118.0, 260.0)
    back = (120.0, 200.0, 158.0, 260.0)
    dets = [Detection(left, "up", "2B", 0.9, 0.99, ("2B",)), Detection(gap, "down", None, 0.8),
            Detection(right, "up", "3B", 0.9, 0.99, ("3B",)), Detection(back, "down", None, 0.8)]
    got = read_rack(FakeModel(dets), _photo([(left, IVORY), (right, IVORY), (back, BACK)]))
    assert got.face_down == 1 and [t.tile for t in got.tiles] == ["2B", "3B"]
    table = table_colour(_photo([(back, BACK)]), [back])
    assert shows_table(_photo([]), gap, table) and not shows_table(_photo([(back, BACK)]), back, table)
    # A back within TABLE_COLOUR_WITHIN of the felt passes for felt; one just beyond it does not.
    near = tuple(int(v) for v in cv2.cvtColor(np.uint8([[FELT]]), cv2.COLOR_BGR2LAB)[0, 0] + (0, 0, 12))
    far = tuple(int(v) for v in cv2.cvtColor(np.uint8([[FELT]]), cv2.COLOR_BGR2LAB)[0, 0] + (0, 0, 20))
    for lab, seen in ((near, True), (far, False)):
        colour = tuple(int(v) for v in cv2.cvtColor(np.uint8([[lab]]), cv2.COLOR_LAB2BGR)[0, 0])
        assert shows_table(_photo([(back, colour)]), back, table) is seen
    # where the boxes cover the whole photo there is no table to compare with: a back stays a back
    assert table_colour(_photo([]), [(0.0, 0.0, 400.0, 300.0)]) is None and not shows_table(_photo([]), gap, None)


def test_impossible_counts_are_pointed_out(table):
    _, pages, view, base = table
    url = base + seat_url(pages, 0) + "api/tiles"
    got = call(url, {"tiles": [{"tile": "3B"}] * 5 + [{"tile": "J"}] * 9 + [{"tile": "N"}]})[1]
    text = " ".join(got["problems"])
    assert "15 tiles" in text and "5 x 3B" in text and "9 Jokers" in text
    assert not any("missing" in n for n in got["advice"]["notes"])     # one too many: nothing is missing
    view.apply({"kind": "window_opened", "t": 0, "seat": 1, "data": {"tile": "N", "named": "N"}})
    for seat in (2, 3):
        view.apply({"kind": "exposure_accepted", "t": 0, "seat": seat, "data": {"tiles": ["N", "N", "N"]}})
    table[0].publish(view.snapshot())
    got = call(url, {"tiles": [{"tile": "N"}] * 2 + [{"tile": "2D"}] * 11})[1]
    assert any("in view on the table" in p for p in got["problems"])
    assert call(url, {"tiles": [{"tile": "ZZ"}]})[0] == 400


def test_the_charleston_pass_is_advised_and_never_a_joker(table):
    _, pages, _, base = table
    call(base + seat_url(pages, 0) + "api/photo", RACK.read_bytes(), ctype="image/jpeg")
    got = call(base + seat_url(pages, 0) + "api/pass", {"pass": "first-right"})[1]
    advised = got["advice"]["pass"]
    assert advised["which"] == "first-right" and len(advised["tiles"]) == 3 and "Joker" not in advised["tiles"]
    assert advised["reason"]
    assert call(base + seat_url(pages, 0) + "api/pass", {"pass": "sideways"})[0] == 400


def test_public_view_is_what_the_display_shows():
    view = TableView()
    view.apply({"kind": "window_opened", "t": 0, "seat": 1, "data": {"tile": "7C", "named": "7C"}})
    view.apply({"kind": "exposure_accepted", "t": 0, "seat": 0, "data": {"tiles": ["GD", "GD", "J"]}})
    view.apply({"kind": "exposure_accepted", "t": 0, "seat": 2, "data": {"tiles": ["4D", "4D", "4D"]}})
    got = public_view(view.snapshot(), 0)
    assert got["exposed"] == [["GD", "GD", "J"]] and sorted(got["seen"]) == ["4D", "4D", "4D", "7C"]


def test_rack_order_is_rows_top_to_bottom_each_left_to_right():
    boxes = [(300, 10, 340, 70), (0, 12, 40, 72), (150, 100, 190, 160), (100, 8, 140, 68), (10, 98, 50, 158)]
    assert rack_order(boxes) == [1, 3, 0, 4, 2]
    aslant = [(40.0 * k, 5.0 * k, 40.0 * k + 40, 5.0 * k + 60) for k in range(14)]   # 65 px of drift: one row
    assert rack_order(aslant[::-1]) == list(range(13, -1, -1))


def test_a_watched_game_never_journals_says_or_prints_a_seats_hand(tmp_path, capsys, monkeypatch):
    """A whole game (`mahj demo`, the recording's true boxes) with a seat's hand on her page from the start: the
    journal, every sentence handed to the table speaker and the console hold nothing of it."""
    from assistant.cli import main
    from assistant.commands.demo import DEMO_RECORDING
    from assistant.speech import Speaker

    if not DEMO_RECORDING.exists():
        pytest.skip(f"no demo recording at {DEMO_RECORDING}")
    hand = "9D 9D 9D 9D 1B 1B 1B 1B 5C 5C 5C 5C J".split()
    said: list[str] = []
    for name in ("say", "announce"):
        original = getattr(Speaker, name)

        def record(self, *args, _original=original, **kw):
            got = _original(self, *args, **kw)
            said.append(repr((args, kw, getattr(got, "text", got))))
            return got
        monkeypatch.setattr(Speaker, name, record)
    start = DisplayServer.start
    tokens = []

    def start_and_take_a_photo(self, *args, **kw):
        started = start(self, *args, **kw)
        status, got = call(self.seats.link(0) + "api/tiles", {"tiles": [{"tile": t} for t in hand]})
        assert status == 200 and got["advice"] is not None
        tokens.append(self.seats.link(0).split("/")[-2])
        return started
    monkeypatch.setattr(DisplayServer, "start", start_and_take_a_photo)
    assert main(["demo", "--out", str(tmp_path), "--detector", "oracle"]) == 0
    assert tokens and said                               # the page had her hand; the speaker spoke the game
    journal = (tmp_path / "journal.jsonl").read_text()
    console = capsys.readouterr().out
    names = ", ".join(["Nine Dot"] * 4)
    assert json.dumps(hand[:6])[1:-1] not in journal and tokens[0] not in journal
    assert not any(names in s or "You hold" in s or tokens[0] in s for s in said)
    assert names not in console and "You hold" not in console


def test_the_console_shows_and_replaces_a_seat_link():
    from assistant.wiring import KEY_HELP, parse_key_command, seat_link

    assert parse_key_command("relink north") == {"seat_link": 3, "reissue": True}
    assert parse_key_command("link 1") == {"seat_link": 1, "reissue": False}
    assert parse_key_command("link") == "not done: say link SEAT (east, south, west, north or 0-3)"
    assert "relink SEAT" in KEY_HELP

    class Console:
        json = False

        def __init__(self) -> None:
            self.lines: list[str] = []

        def text(self, message: str, **data) -> None:
            self.lines.append(message)

    class Assistant:
        console = Console()
        display = DisplayServer(port=0, token=TOKEN, seats=SeatPages(("Ada", "", "", ""), None, None))

    pages = Assistant.display.seats
    old = pages.link(3)
    seat_link(Assistant, 3, reissue=True)
    lines = Assistant.console.lines
    assert pages.link(3) != old and pages.seat_of(old.split("/")[-2]) is None
    assert "North: a new private link; the old one no longer works" in lines[0]
    assert "phones cannot open them" in lines[1] and 'display.host = "0.0.0.0"' in lines[1]
    assert lines[2].startswith("North's private page") and pages.link(3) in lines[2]
    assert set(lines[3]) <= {"\u2588", "\u2580", "\u2584", " ", "\n"} and lines[3].count("\n") > 10  # its QR code


def test_the_console_qr_code_scans_as_the_seat_link():
    """The half-block QR code, turned back into pixels, decodes (OpenCV's reader) to the link it was made for."""
    from assistant.qr import qr_text

    url = "http://192.168.1.20:8765/seat/abcdefghijklmnopqrstuv/"
    halves = {"\u2588": (1, 1), "\u2580": (1, 0), "\u2584": (0, 1), " ": (0, 0)}   # light top, light bottom
    rows = []
    for line in qr_text(url).split("\n"):
        rows += [[halves[c][0] for c in line], [halves[c][1] for c in line]]
    image = np.kron(np.array(rows, np.uint8) * 255, np.ones((8, 8), np.uint8))
    assert cv2.QRCodeDetector().detectAndDecode(image)[0] == url


def test_a_poll_while_nothing_changed_is_not_advised_again(table):
    srv, pages, view, base = table
    call(base + seat_url(pages, 0) + "api/photo", RACK.read_bytes(), ctype="image/jpeg")
    first = pages.state(0)
    assert pages.state(0) is first                       # the same answer: nothing was computed again
    view.apply({"kind": "window_opened", "t": 0, "seat": 1, "data": {"tile": "3B", "named": "3B"}})
    srv.publish(view.snapshot())
    moved = pages.state(0)
    assert moved is not first and moved["seen"] == first["seen"] + 1
    call(base + seat_url(pages, 0) + "api/tiles", {"tiles": [{"tile": t} for t in RACK_TILES[:13]]})
    assert pages.state(0)["advice"]["tiles"] == 13


@pytest.mark.parametrize("path, body, said", [
    pytest.param("api/tiles", b"[" * 30000 + b"]" * 30000, "nested too deeply", id="deep"),
    ("api/tiles", {"tiles": "3B 4B"}, "tiles must be a list"),
    ("api/tiles", {"tiles": [{"tile": "3B"}] * 41}, "at most 40"),
    ("api/tiles", {"tiles": [{"tile": "3B"}, "4B"]}, "tile 2: must be an object"),
    ("api/tiles", {"tiles": [{"tile": "eleven bam"}]}, "tile 1:"),
    ("api/tiles", b"\xff\xfe not json", ""),
    ("api/pass", {"pass": "first-right", "courtesy": True}, "courtesy must be 0, 1, 2 or 3"),
    ("api/pass", {"pass": ["courtesy"]}, "pass must be one of"),
])
def test_a_body_the_page_would_never_send_is_refused_in_words(table, path, body, said):
    _, pages, _, base = table
    status, got = call(base + seat_url(pages, 0) + path, body)
    assert status == 400 and said in got["error"]
    assert call(base + seat_url(pages, 0) + "api/state")[0] == 200


def deal(view: TableView, srv: DisplayServer, over: str | None = None) -> None:
    """The table deals a hand (``over``: after ending the last one with this ruling), and the display shows it."""
    if over is not None:
        view.apply({"kind": over, "t": 0, "seat": None, "data": {}})
    view.apply({"kind": "dealt", "t": 0, "seat": 0, "data": {"east": 0, "game": view.deal + 1}})
    srv.publish(view.snapshot())


def test_a_new_deal_drops_the_last_hand_and_says_so(table):
    srv, pages, view, base = table
    early = base + seat_url(pages, 1) + "api/tiles"
    call(early, {"tiles": [{"tile": "3B"}] * 3})              # before mahj saw any deal: the first hand's
    deal(view, srv)
    assert len(call(base + seat_url(pages, 1) + "api/state")[1]["tiles"]) == 3
    url = base + seat_url(pages, 0)
    assert call(url + "api/photo", RACK.read_bytes(), ctype="image/jpeg")[0] == 200
    first = call(url + "api/tiles", {"tiles": [{"tile": t} for t in ["6B"] + RACK_TILES[1:]], "deal": 1})[1]
    call(url + "api/pass", {"pass": "first-right"})
    assert first["deal"] == 1 and first["tiles"][0]["tile"] == "6B" and first["cleared"] == ""
    deal(view, srv, over="wall_game")
    got = call(url + "api/state")[1]
    assert got["tiles"] == [] and got["sorted"] == [] and got["advice"] is None and got["pass"] is None
    assert got["deal"] == 2 and got["cleared"].startswith("A new hand was dealt") and "Photograph" in got["cleared"]
    # A correction her page made to the last hand, arriving after the deal, is not applied to the new one.
    stale = call(url + "api/tiles", {"tiles": [{"tile": t} for t in RACK_TILES], "deal": 1})[1]
    assert stale["tiles"] == [] and stale["cleared"] == got["cleared"]
    # Her next photo is read as usual and ends the notice; a seat that held nothing is told nothing.
    fresh = call(url + "api/photo", RACK.read_bytes(), ctype="image/jpeg")[1]
    assert [t["tile"] for t in fresh["tiles"]] == RACK_TILES and fresh["cleared"] == "" and fresh["deal"] == 2
    assert call(base + seat_url(pages, 1) + "api/state")[1]["tiles"] == []
    assert call(base + seat_url(pages, 2) + "api/state")[1]["cleared"] == ""
    assert call(url + "api/tiles", {"tiles": [], "deal": "two"})[0] == 400


def test_a_rack_photographed_after_the_hand_ended_is_kept_for_the_next_deal(table):
    """The camera cannot see the deal: mahj takes the next hand as dealt at its first discard, after the
    Charleston. A rack photographed once the last hand ended is the new hand's, so that deal keeps it, and until
    then nothing of the last hand (its floor, its exposures) counts against it."""
    srv, pages, view, base = table
    deal(view, srv)
    view.apply({"kind": "window_opened", "t": 0, "seat": 1, "data": {"tile": "3B", "named": "3B"}})
    view.apply({"kind": "exposure_accepted", "t": 0, "seat": 0, "data": {"tiles": ["GD", "GD", "GD"]}})
    view.apply({"kind": "wall_game", "t": 0, "seat": None, "data": {}})
    srv.publish(view.snapshot())
    url = base + seat_url(pages, 3)
    call(url + "api/photo", RACK.read_bytes(), ctype="image/jpeg")
    got = call(url + "api/state")[1]
    assert got["next_hand"] is True and got["hand_over"] is False and got["deal"] == 2
    assert got["seen"] == 0 and got["exposed"] == [] and got["advice"]["tiles"] == 14
    deal(view, srv)
    kept = call(url + "api/state")[1]
    assert [t["tile"] for t in kept["tiles"]] == RACK_TILES and kept["cleared"] == "" and kept["next_hand"] is False


def test_what_is_no_image_is_refused_as_such_even_without_a_tile_model():
    pages = SeatPages(("Ada", "Bob", "Cy", "Di"), model=None, card=None)
    with pytest.raises(PhotoRefused) as err:
        pages.read_photo(0, b"%PDF-1.4 not a photo at all")
    assert err.value.status == 415 and "a PDF" in str(err.value)
    with pytest.raises(PhotoRefused) as err:    # an image, where no model can read it: said so
        pages.read_photo(0, RACK.read_bytes())
    assert err.value.status == 503
