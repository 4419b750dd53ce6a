"""TableReader on the committed fixture videos (oracle detector), and how it schedules regions on synthetic
input: arms, motion, the referee's expectation."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_kit import Boxes, plain_calibration, table_image

from vision.change import MM_PER_PX, ChangeWatcher
from vision.events import read_log
from vision.oracle import OracleDetector
from vision.reader import TableReader
from vision.recording import meta_for
from vision.replay import read_video
from vision.scoring import score

FIXTURES = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures"


def _read_fixture(name: str):
    video = FIXTURES / f"{name}.mp4"
    meta = meta_for(video)
    res = read_video(video, OracleDetector.load(video.with_suffix(".boxes.npz"), meta["frames"]))
    truth = [e.to_json() for e in read_log(video.with_suffix(".truth.jsonl"))]
    observed = [e.to_json() for e in res.events]
    return res, observed, truth, score(observed, truth, meta["disturbances"]), meta


@pytest.fixture(scope="module")
def moves():
    return _read_fixture("moves")


def test_call_exposure_and_joker_exchange_are_read(moves):
    _res, observed, truth, s, meta = moves
    assert any(d["kind"] == "occlusion" for d in meta["disturbances"])
    for kind in ("discard_down", "exposure_placed", "joker_exchanged", "racked"):
        assert s.fn[kind] == 0 and s.fp[kind] == 0, (kind, s.misses, s.extras)
    exp = next(o for o in observed if o["type"] == "exposure_placed")
    want = next(t for t in truth if t["type"] == "exposure_placed")
    assert exp["seat"] == want["seat"] and sorted(exp["tiles"]) == sorted(want["tiles"])
    assert not s.invented_in_disturbance


def test_events_carry_frame_time_confidence_and_stay_in_order(moves):
    res, observed, _truth, _s, _meta = moves
    assert [e.frame for e in res.events] == sorted(e.frame for e in res.events)
    for o in observed:
        assert o["t"] == pytest.approx(o["frame"] / 30.0)
        assert 0.0 <= o["confidence"] <= 1.0
        if o.get("t_action") is not None:
            assert o["t_action"] <= o["t"]


def test_camera_problems_without_invented_moves():
    _res, observed, _truth, s, meta = _read_fixture("camera")
    kinds = {d["kind"] for d in meta["disturbances"]}
    assert {"bump", "light", "drop"} <= kinds
    problems = {o["problem"] for o in observed if o["type"] == "camera_problem"}
    assert {"bumped", "frames_dropped"} <= problems
    assert not s.invented_in_disturbance
    for kind in ("discard_down", "picked", "racked"):
        assert s.fp[kind] == 0, s.extras
        assert s.recall(kind) == 1.0, s.misses


def test_demo_recording_ends_in_a_displayed_hand():
    _res, observed, truth, s, meta = _read_fixture("demo")
    assert meta["source"]["outcome"] == "mahjong"
    shown = [o for o in observed if o["type"] == "hand_displayed"]
    want = next(t for t in truth if t["type"] == "hand_displayed")
    assert len(shown) == 1 and shown[0]["seat"] == want["seat"]
    assert sorted(shown[0]["tiles"]) == sorted(want["tiles"]) and len(want["tiles"]) == 14
    assert all(s.recall(k) == 1.0 for k in ("discard_down", "picked", "racked")), s.misses


def test_an_arm_over_a_rack_freezes_it_and_nothing_is_invented():
    cal = plain_calibration()
    cal.bands_fitted = True
    rack = [(450 + k * 24 - 150, 880, "down", None) for k in range(13)]        # East's standing tiles
    det = Boxes(cal, list(rack))
    reader = TableReader(cal, det)
    rng = np.random.default_rng(0)
    events = []
    frame = 0

    def step(img):
        nonlocal frame
        noisy = np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)
        events.extend(reader.process(noisy, frame, frame / 30))
        frame += 1

    for _ in range(30):
        step(table_image(cal, rack))
    # An arm comes in from East's edge, reaches past the rack and lies still (1.5 s); the detector loses 5 tiles
    # under it.
    det.tiles = rack[:4] + rack[9:]
    for _ in range(45):
        step(table_image(cal, rack[:4] + rack[9:], arm=((350, 640), (360, 500))))
    assert not events, events
    # The arm leaves; the tiles are all there again: still nothing.
    det.tiles = list(rack)
    for _ in range(40):
        step(table_image(cal, rack))
    assert not events, events
    assert len(reader.tiles("slope0")) == 13
    # Now a tile is really racked: one event, for East.
    det.tiles = rack + [(450 + 13 * 24 - 150, 880, "down", None)]
    for _ in range(20):
        step(table_image(cal, det.tiles))
    assert [(e.type, e.seat) for e in events] == [("racked", 0)]


def test_readings_agreeing_either_side_of_a_passing_motion_confirm_a_rack():
    """A hand settling near the rack after racking moves now and then. A reading taken before such a motion and
    one after it that agree show the row the same both times: the second confirms the first (a frame sooner
    than two more readings would), which is where the window on a discard closes."""
    cal = plain_calibration()
    cal.bands_fitted = True
    rack = [(450 + k * 24 - 150, 880, "down", None) for k in range(13)]
    det = Boxes(cal, list(rack))
    reads: list[int] = []
    at = det.detect_at
    det.detect_at = lambda idx, rect: reads.append(idx) or at(idx, rect)
    reader = TableReader(cal, det)
    rng = np.random.default_rng(2)

    def noisy(img):                                 # bit-identical frames would be a frozen camera
        return np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)

    events = []
    for i in range(30):
        events += reader.process(noisy(table_image(cal, rack)), i, i / 30)
    det.tiles = rack + [(450 + 13 * 24 - 150, 880, "down", None)]       # East racks a 14th tile
    racked = table_image(cal, det.tiles)
    finger = racked.copy()
    (u, v), = cal.to_image(np.array([[660.0, 880.0]]))
    cv2.rectangle(finger, (int(u - 6), int(v - 6)), (int(u + 6), int(v + 6)), (90, 140, 200), -1)
    first_read = None
    for i in range(30, 60):
        moving = first_read is not None and i in (first_read + 1, first_read + 2)
        events += reader.process(noisy(finger if moving else racked), i, i / 30)
        if first_read is None and reads and reads[-1] == i:
            first_read = i
    assert first_read is not None, reads
    after = [r for r in reads if r > first_read + 2]
    assert [(e.type, e.seat) for e in events] == [("racked", 0)]
    assert events[0].frame == after[0], (events[0].frame, reads)


def test_edge_blob_is_an_arm_but_a_tile_is_not():
    cal = plain_calibration()
    w = ChangeWatcher(cal)
    base = np.full((w.side, w.side), 100, np.uint8)
    w.table_ref = base.copy()
    tile = base.copy()
    cv2.rectangle(tile, (140, 140), (148, 150), 230, -1)                # a discard on the floor
    assert w.occluded(tile, 23 * 31) == set()
    arm = base.copy()
    cv2.line(arm, (150, w.side - 1), (150, w.side - 60), 220, int(80 / MM_PER_PX))   # from East's edge
    w.motion_hist[:] = 1                                              # the arm trembles
    hit = w.occluded(arm, 23 * 31)
    assert {"slope0", "rack_top0", "wall0"} <= hit and "slope2" not in hit


def test_expectation_turn_names_the_discarder_and_counts_are_checked():
    cal = plain_calibration()
    cal.bands_fitted = True
    rack = [(450 + k * 24 - 150, 880, "down", None) for k in range(13)]
    det = Boxes(cal, list(rack))
    reader = TableReader(cal, det)
    rng = np.random.default_rng(1)
    events = []
    for i in range(150):
        if i == 30:
            det.tiles = rack + [(450, 450, "up", "5D")]
        img = table_image(cal, det.tiles)
        img = np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)
        events += reader.process(img, i, i / 30, expect={"turn": 2, "rack_counts": {0: 14}})
    kinds = [(e.type, getattr(e, "seat", None)) for e in events]
    assert ("discard_down", 2) in kinds                       # no arm seen: the referee's turn decides
    mismatch = [e for e in events if e.type == "tile_count"]
    assert len(mismatch) == 1 and (mismatch[0].seen, mismatch[0].expected) == (13, 14)
    assert mismatch[0].t >= 3.0                                # a passing difference is not reported
    assert json.loads(json.dumps(mismatch[0].to_json()))["type"] == "tile_count"
