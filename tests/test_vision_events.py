"""Event types and the JSON Lines event log; the tracker's matching and commits."""

import json

import pytest

from vision.events import (
    EVENT_TYPES,
    CameraProblem,
    DiscardDown,
    EventLog,
    EventLogError,
    ExposurePlaced,
    from_json,
    read_log,
)
from vision.tracker import RegionTracks, TileSeen, match, same_reading, vote


def test_every_type_round_trips_through_the_log(tmp_path):
    evs = [DiscardDown(1.5, 45, 0.97, seat=2, tile="5D", t_action=1.2),
           ExposurePlaced(3.0, 90, 0.9, seat=1, tiles=("N", "N", "J")),
           CameraProblem(4.0, 120, 1.0, problem="bumped", detail="markers moved 7 px", resolved=True)]
    path = tmp_path / "events.jsonl"
    with EventLog(path) as log:
        log.write_all(evs)
    lines = path.read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["discard_down", "exposure_placed", "camera_problem"]
    assert list(read_log(path)) == evs
    assert set(EVENT_TYPES) >= {"discard_down", "picked", "racked", "exposure_placed", "joker_exchanged",
                                "hand_displayed", "tile_count", "camera_problem", "ask_human"}


def test_log_appends_and_bad_lines_name_file_and_line(tmp_path):
    path = tmp_path / "e.jsonl"
    EventLog(path).write(DiscardDown(1.0, 30, 1.0, seat=0, tile="F"))
    with EventLog(path) as log:                          # a second session appends, never truncates
        log.write(DiscardDown(2.0, 60, 1.0, seat=1, tile="J"))
    assert len(list(read_log(path))) == 2
    with path.open("a") as f:
        f.write('{"type": "discard_down", "t": 3.0, "fra')   # a crash mid-line
    with pytest.raises(EventLogError, match=r"e.jsonl:3:"):
        list(read_log(path))
    with pytest.raises(EventLogError, match="unknown event type 'dance'"):
        from_json({"type": "dance", "t": 0, "frame": 0, "confidence": 1})
    with pytest.raises(EventLogError, match="unknown tile code 'XX'"):
        from_json({"type": "discard_down", "t": 0, "frame": 0, "confidence": 1, "tile": "XX"})
    with pytest.raises(EventLogError, match="lacks 'frame'"):
        from_json({"type": "racked", "t": 0, "confidence": 1})
    with pytest.raises(EventLogError, match=r"unknown field\(s\) \['colour'\]"):
        from_json({"type": "racked", "t": 0, "frame": 1, "confidence": 1, "colour": "red"})


@pytest.mark.parametrize("method", ["greedy", "hungarian"])
def test_matching_pairs_near_tiles_only(method):
    a = [TileSeen(0, 0, "up"), TileSeen(24, 0, "up"), TileSeen(48, 0, "up")]
    b = [TileSeen(25, 1, "up"), TileSeen(1, -1, "up"), TileSeen(200, 0, "up")]
    assert sorted(match(a, b, 13.8, method)) == [(0, 1), (1, 0)]
    assert match([], b, 13.8, method) == []


def test_hungarian_beats_greedy_where_greedy_steals_a_partner():
    # Greedy takes the closest pair (a1-b0) first and leaves a0 without a partner in range.
    a = [TileSeen(0, 0, "up"), TileSeen(10, 0, "up")]
    b = [TileSeen(9, 0, "up"), TileSeen(22, 0, "up")]
    assert len(match(a, b, 13.0, "greedy")) == 1
    assert len(match(a, b, 13.0, "hungarian")) == 2


def test_region_commit_reports_added_removed_and_a_joker_swapped():
    tracks = RegionTracks(max_dist=13.8)
    first = [TileSeen(0, 0, "up", "5B"), TileSeen(24, 0, "up", "J"), TileSeen(48, 0, "up", "5B")]
    assert len(tracks.commit(first).added) == 3
    swapped = [TileSeen(0, 0, "up", "5B"), TileSeen(25, 1, "up", "5B"), TileSeen(48, 0, "up", "5B")]
    diff = tracks.commit(swapped)
    assert not diff.added and not diff.removed
    assert [(old, t.tile) for old, t in diff.recoded] == [("J", "5B")]
    diff = tracks.commit(swapped[:2] + [TileSeen(72, 0, "up", "N")])
    assert [t.tile for t in diff.removed] == ["5B"] and [t.tile for t in diff.added] == ["N"]
    assert same_reading(swapped, list(reversed(swapped)), 5.0)
    assert not same_reading(swapped, first, 5.0)


def test_a_wavering_code_is_voted_and_never_recodes_a_tile():
    tracks = RegionTracks(max_dist=13.8)
    tracks.commit([TileSeen(0, 0, "up", "J", tile_score=0.9)])
    flicker = [[TileSeen(0, 0, "up", "5B", tile_score=0.6)], [TileSeen(1, 0, "up", "J", tile_score=0.9)]]
    assert same_reading(flicker[0], flicker[1], 5.0, codes=False) and not same_reading(*flicker, 5.0)
    voted = vote(flicker, 5.0)
    assert voted[0].tile == "J" and voted[0].agree == 0.5 and voted[0].alts == ("J", "5B")
    assert not tracks.commit(voted)                                  # no news
    sure = vote([[TileSeen(0, 0, "up", "5B", tile_score=0.9)], [TileSeen(0, 1, "up", "5B", tile_score=0.8)]], 5.0)
    diff = tracks.commit(sure)
    assert [(old, t.tile) for old, t in diff.recoded] == [("J", "5B")]
    assert tracks.tracks[0].confidence == pytest.approx(0.85)      # both agree x mean classifier score
