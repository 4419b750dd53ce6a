"""End to end through the assistant with the referee's seeded legal games, seen the way a camera sees them.

Each scripted game (4 players; and 3, with no Charleston and North's chair empty) is turned into camera
observations (no sounds: claims and announcements dropped, the Charleston unseen), fed through the pipeline, and
must end with the same verified Mah Jongg and settlement the referee gave the original event stream: inferred
claims, exposures, joker exchanges and Mah Jongg on a discard all have to come out right.
"""

from collections import Counter

import pytest

pytest.importorskip("engine.referee.scripted", reason="needs the referee's scripted games (issue 3)")
pytest.importorskip("vision.events", reason="needs vision events (issue 7)")

from assistant.pipeline import Assistant  # noqa: E402
from assistant.profile import Profile  # noqa: E402
from assistant.wiring import load_game_card, load_scoring  # noqa: E402
from datasets.misreads import camera_view  # noqa: E402
from engine.referee import Referee  # noqa: E402
from engine.referee import events as rev  # noqa: E402
from engine.referee.scripted import scripted_game  # noqa: E402


@pytest.mark.parametrize("seed, players", [(0, 4), (1, 4), (2, 4), (3, 4), (0, 3), (1, 3)])
def test_scripted_game_through_the_pipeline(seed, players):
    profile = Profile(players=("Ada", "Bob", "Cy", "Di" if players == 4 else ""))
    card, scoring = load_game_card(profile), load_scoring(profile)
    game = scripted_game(card, scoring, seed=seed, players=players, outcome="mahjong")
    truth = [r for rs in game.rulings for r in rs]
    a = Assistant(Referee(card, scoring, players=profile.table_size), profile.players)
    a.start_game(0.0)
    a.observe(camera_view(game.events))
    rejected = [r.data["reason"] for r in a.rulings if r.kind == "rejected"]
    assert not rejected
    want = next(r for r in truth if r.kind == "mahjong_verified")
    got = next(r for r in a.rulings if r.kind == "mahjong_verified")
    assert (got.seat, got.data["value"], got.data["self_picked"]) == (
        want.seat, want.data["value"], want.data["self_picked"])
    assert next(r for r in a.rulings if r.kind == "settlement").data["payments"] == next(
        r for r in truth if r.kind == "settlement").data["payments"]
    assert sum(r.kind == "claim_awarded" for r in a.rulings) == sum(r.kind == "claim_awarded" for r in truth)
    # The display's floor, folded from the rulings alone, is the referee's; the winning hand is all 14 tiles.
    shown = a.view.snapshot()
    assert {f["tile"]: f["count"] for f in shown["floor"]} == Counter(
        t for seat in a.referee.snapshot()["seats"] for t in seat["discards"])
    declared = next(e for e in game.events if isinstance(e, rev.MahjongDeclared))
    hand = Counter(t["tile"] for group in shown["mahjong"]["hand"] for t in group)
    assert hand.total() == 14 and not Counter(declared.tiles) - hand
