"""Joining a game in progress (`mahj watch --join`): mahj is told (or asks) who is East, whose turn it is and
about how many wall tiles are left, and until it has seen the turn order no ruling rests on what it did not see."""

import json
from pathlib import Path

import pytest
from referee_kit import Table, kinds, only

from assistant.cli import main
from assistant.display.app import check_correction
from assistant.wiring import parse_key_command
from engine.referee import events

FIXTURES = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures"
MODEL = Path(__file__).resolve().parents[1] / "models" / "tile_detector.onnx"


class Camera(Table):
    """The camera's events (untrusted); ``person=True`` for what a person says."""

    def __call__(self, kind, /, person=False, **fields):
        self.t += 1.0
        out = self.ref.apply(events.from_json({"type": kind, "t": self.t, **fields}), trusted=person)
        self.rulings += out
        return out


def test_a_joined_game_follows_the_play_until_it_has_seen_the_turn_order():
    g = Camera()
    dealt = only(g("join"), "dealt")
    assert dealt.data["joined"] and g.ref.stage.value == "play"
    assert [s.total for s in g.ref.seats] == [13, 13, 13, 13]
    # The first discards come from wherever the play is: followed, with no question and no penalty.
    for seat, tile in ((2, "3C"), (0, "E"), (2, "9B")):
        out = g("discard", seat=seat, tile=tile)
        assert not {"question", "dead_hand", "redeal", "discard_at_fault"} & set(kinds(out)), (seat, kinds(out))
    g("pick", seat=3)
    g("discard", seat=3, tile="N")  # North, as expected after West: the turn order is seen
    out = g("discard", seat=1, tile="8B")  # South out of turn (East's): the camera's evidence is asked about
    assert only(out, "question").data["reason"] == "discarding out of turn"


def test_what_a_person_said_holds_and_only_the_pick_is_unseen():
    g = Camera()
    dealt = only(g("join", person=True, east=1, turn=2, wall=40), "dealt")
    assert (g.ref.east, g.ref.turn, g.ref.wall) == (1, 2, 40)
    assert dealt.data["wall"] == 40 and dealt.seat == 1          # the wall said, not the most a joined game has
    out = g("discard", seat=2, tile="3C")  # West had picked before mahj joined: no question
    assert "question" not in kinds(out) and g.ref.turn == 3 and g.ref.wall == 39
    g = Camera()
    g("join", person=True, turn=2)
    assert only(g("discard", seat=0, tile="3C"), "question").seat == 0  # against a person's word: asked


def test_a_person_corrects_east_turn_and_wall_during_play_and_nonsense_is_refused():
    g = Camera()
    g("join")
    g("discard", seat=0, tile="3C")
    g("join", person=True, east=3, turn=1, wall=12)
    assert (g.ref.east, g.ref.turn, g.ref.wall, g.ref.phase.value) == (3, 1, 12, "wait_pick")
    assert "east must be a chair" in only(g("join", person=True, east=7), "rejected").data["reason"]
    assert "wall must be 0..99" in only(g("join", person=True, wall=120), "rejected").data["reason"]


def test_keyboard_and_display_tell_mahj_about_the_joined_game():
    assert parse_key_command("east west") == {"action": "join", "east": 2, "turn": None, "wall": None}
    assert parse_key_command("wall 40") == {"action": "join", "east": None, "turn": None, "wall": 40}
    assert parse_key_command("turn nobody").startswith("not done")
    assert check_correction({"action": "join", "turn": 3}) == {"action": "join", "east": None, "turn": 3,
                                                              "wall": None}
    with pytest.raises(ValueError, match="at least one"):
        check_correction({"action": "join"})


def test_bad_join_options_are_named_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["watch", "--video", "x.mp4", "--join", "--east", "bogus"])
    assert exc.value.code == 2 and "'bogus' is not a seat" in capsys.readouterr().err


@pytest.mark.skipif(not MODEL.exists(), reason="the tile model is not shipped in this checkout")
def test_the_demo_recording_joined_asks_nothing_and_settles_as_the_rules_say(tmp_path, capsys):
    assert main(["watch", "--video", str(FIXTURES / "demo.mp4"), "--join", "--wall", "20", "--json", "--no-speech",
                 "--no-display", "--board", "none", "--journal", str(tmp_path / "j.jsonl")]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    rulings = [x["ruling"]["kind"] for x in lines if x["type"] == "ruling"]
    assert "question" not in rulings and "dead_hand" not in rulings
    assert lines[-1]["settlement"]["data"]["payments"] == {"0": -50, "1": -25, "2": 100, "3": -25}
    first = next(x for x in lines if x["type"] == "event")
    assert first["event"] == {"type": "join", "t": first["event"]["t"], "east": None, "turn": None, "wall": 20}
    # what the reader took in from the table is said once, in the stream and the journal (the walls, here)
    (taken,) = [x["ruling"]["data"] for x in lines if x["type"] == "ruling" and x["ruling"]["kind"] == "taken_in"]
    assert sum(s["wall"] for s in taken["seats"].values()) > 0 and taken["message"].startswith("mahj took in")
    journaled = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert [r["notice"]["data"] for r in journaled if r.get("notice", {}).get("kind") == "taken_in"] == [taken]


class _Reader:
    """The reader as taken_in sees it: regions with their committed tiles."""

    def __init__(self, tiles: dict, unread: tuple[str, ...] = ()) -> None:
        from types import SimpleNamespace

        from vision.calibration import Calibration, TableLayout, calibrate_from_corners

        self.cal: Calibration = calibrate_from_corners({0: (900, 900), 1: (900, 0), 2: (0, 0), 3: (0, 900)},
                                                       (900, 900), TableLayout())
        names = ["floor"] + [f"{k}{s}" for s in range(4) for k in ("slope", "rack_top", "wall")]
        self.regions = {n: SimpleNamespace(committed_at=-(10**9) if n in unread else 5) for n in names}
        self._tiles = tiles

    def tiles(self, name):
        from vision.tracker import Track

        return [Track(i, x, y, face, tile) for i, (x, y, face, tile) in enumerate(self._tiles.get(name, []))]


def test_after_a_join_what_the_reader_took_in_is_said_journaled_and_shown():
    """Joining, the reader adopts the table's tiles without moves; once every region is read, one `taken_in`
    notice says what it took in (floor, exposures per seat, racks, walls): in the journal and the JSON stream as
    a notice, and on the display's floor and exposures. Before, it was seen only in the annotated video."""
    from assistant.display.state import TableView
    from assistant.pipeline import Assistant
    from assistant.taken_in import WAIT_S
    class Journal(list):
        append = list.append

    # East's rack top (y near 900 - 70): a pung of 5 Bam, then a gap, then a pair of Jokers with a North
    east_top = [(300, 830, "up", "5B"), (322, 830, "up", "5B"), (344, 830, "up", "5B"),
                (500, 830, "up", "J"), (522, 830, "up", "N")]
    floor = [(400, 400, "up", "3C"), (450, 420, "up", "E"), (480, 470, "down", None)]
    reader = _Reader({"rack_top0": east_top, "floor": floor, "wall1": [(780, 400, "down", None)] * 3,
                      "slope2": [(450, 10, "down", None)] * 13}, unread=("wall3",))
    journal = Journal()
    a = Assistant(Table().ref, ("A", "B", "C", "D"), journal=journal)
    a.join = {"east": 0, "turn": None, "wall": 40}
    a.start_game(0.0)
    a.t = 1.0
    a.take_in(reader)
    assert not any(r.get("notice", {}).get("kind") == "taken_in" for r in journal)     # wall3 not read yet
    reader.regions["wall3"].committed_at = 7
    a.take_in(reader)
    (notice,) = [r["notice"] for r in journal if r.get("notice", {}).get("kind") == "taken_in"]
    data = notice["data"]
    assert data["floor"] == ["3C", "E"] and data["floor_down"] == 1 and data["unread"] == []
    assert data["seats"]["0"]["exposures"] == [["5B", "5B", "5B"], ["J", "N"]]
    assert data["seats"]["1"]["wall"] == 3 and data["seats"]["2"]["rack"] == 13
    assert data["message"].startswith("mahj took in the table: floor 2 face up (3C E), 1 face down; East: 5B 5B 5B; "
                                      "J N, 0 on the rack, wall 0")
    snap = a.view.snapshot()
    assert {f["tile"]: f["count"] for f in snap["floor"]} == {"3C": 1, "E": 1}
    assert [[t["tile"] for t in run] for run in snap["seats"][0]["exposures"]] == [["5B", "5B", "5B"], ["J", "N"]]
    assert snap["log"][0] == data["message"]
    a.take_in(reader)                                                         # said once
    assert sum(r.get("notice", {}).get("kind") == "taken_in" for r in journal) == 1

    # a region never read (under an arm the whole time) does not hold it back past WAIT_S: it is named
    b = Assistant(Table().ref, ("A", "B", "C", "D"), journal=Journal())
    b.join = {"east": None, "turn": None, "wall": None}
    b.start_game(0.0)
    b.t = WAIT_S + 0.5
    b.take_in(_Reader({}, unread=("floor",)))
    (late,) = [r["notice"] for r in b.journal if r.get("notice", {}).get("kind") == "taken_in"]
    assert late["data"]["unread"] == ["floor"] and "(not read yet: floor)" in late["data"]["message"]
    assert TableView().apply(late) is True
