"""Events: JSON round trip for every type, and clear errors for dicts that are not events."""

import dataclasses
import json

import pytest

from engine.referee import events
from engine.referee.rulings import Ruling

SAMPLES = [
    events.Deal(0.0), events.Deal(1.5, east=2), events.Dice(2.0, 0, 7),
    events.CharlestonPass(3.0, 1, "left", 3, 2, ("1B", "2C", "N")), events.CourtesyPass(4.0, 2, 1, ("5D",)),
    events.CharlestonStop(5.0, 3), events.Pick(6.0, 1, "wrong_end", "4B"), events.Rack(7.0, 1),
    events.Discard(8.0, 1, "4B", named="5B", touching=False), events.Claim(9.0, 2, "mahjong"),
    events.Exposure(10.0, 2, ("4B", "J", "4B")), events.JokerExchangeAnnounced(11.0, 3),
    events.JokerExchange(12.0, 3, 2, 0, "4B"), events.MahjongDeclared(13.0, 3, ("1B",) * 14, True),
    events.DeadChallenge(14.0, 0, 1, None), events.TileCount(15.0, 1, 13), events.ThrowIn(16.0, 2),
    events.AttemptedHand(17.0, 2, 30), events.Penalty(18.0, 1, "blind_pass_peek"), events.WallExhausted(19.0),
    events.WallDestroyed(19.5, 2), events.TimeCalled(19.7),
    events.SeatChange(20.0, 0, 1), events.Correction(21.0, "fix", 3, {"type": "rack", "t": 7.0, "seat": 1}),
    events.Answer(22.0, 4, confirmed=False), events.Join(23.0, east=1, turn=2, wall=40),
]


def test_every_event_type_has_a_sample():
    assert {events.type_name(e) for e in SAMPLES} == set(events.TYPES)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: events.type_name(e))
def test_event_json_round_trip(event):
    d = events.to_json(event)
    assert d["type"] == events.type_name(event)
    again = events.from_json(json.loads(json.dumps(d)))
    assert again == event and dataclasses.is_dataclass(again)


@pytest.mark.parametrize("bad,message", [
    ([1, 2], "must be a JSON object"),
    ({"t": 1.0}, "type: unknown event type None"),
    ({"type": "discrad", "t": 1.0}, "unknown event type 'discrad'"),
    ({"type": "discard", "t": 1.0, "seat": 0}, "discard.tile: missing"),
    ({"type": "discard", "t": "soon", "seat": 0, "tile": "1B"}, "discard.t: expected a number"),
    ({"type": "discard", "t": 1.0, "seat": True, "tile": "1B"}, "discard.seat: expected an integer"),
    ({"type": "discard", "t": 1.0, "seat": 0, "tile": "1B", "colour": "red"}, "unknown field(s) colour"),
    ({"type": "exposure", "t": 1.0, "seat": 0, "tiles": "1B 1B 1B"}, "exposure.tiles: expected a list"),
    ({"type": "exposure", "t": 1.0, "seat": 0, "tiles": ["1B", 2]}, "exposure.tiles[1]: expected a string"),
    ({"type": "discard", "t": 1.0, "seat": 0, "tile": "1B", "named": 5}, "discard.named: expected str or null"),
])
def test_bad_event_dicts_rejected_clearly(bad, message):
    with pytest.raises(events.EventError) as exc:
        events.from_json(bad)
    assert message in str(exc.value)


def test_ruling_json_round_trip():
    r = Ruling("settlement", 3.5, None, {"payments": {"0": 50}, "balances": {"0": 50}})
    assert Ruling.from_json(json.loads(json.dumps(r.to_json()))) == r
