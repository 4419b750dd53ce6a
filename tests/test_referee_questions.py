"""The camera alone never penalises (engine/referee/doubt.py): a penalty that rests on an event the camera read
is put to the table as a question, and applies only when a person confirms it in time."""

from referee_kit import EVENS, Table, kinds, only, payments

from engine.referee import events
from engine.referee.doubt import QUESTION_SECONDS


class CameraTable(Table):
    """A Table whose events are the camera's (untrusted) unless ``person=True``."""

    def __call__(self, kind: str, /, person: bool = False, **fields):
        if "t" not in fields:
            self.t += 1.0
            fields["t"] = self.t
        out = self.ref.apply(events.from_json({"type": kind, **fields}), trusted=person)
        self.rulings += out
        return out

    def answer(self, index: int, confirmed: bool = True):
        return self("answer", person=True, index=index, confirmed=confirmed)


def started() -> CameraTable:
    g = CameraTable()
    for e in [("deal", {})] + [("charleston_pass", {"seat": s, "direction": d})
                               for d in ("right", "across", "left") for s in range(4)] + [("charleston_stop",
                                                                                           {"seat": 0})]:
        g(e[0], person=True, **e[1])
    return g


def test_a_misread_exposure_is_asked_about_and_counts_as_the_called_tile():
    g = started()
    g.turn(0, "8D")
    g("claim", seat=1, purpose="exposure")
    out = g("exposure", seat=1, tiles=["2D", "8D", "2D", "2D"])  # the misread kong
    q = only(out, "question")
    assert (q.seat, q.data["penalty"]) == (1, "dead_hand") and "invalid exposure" in q.data["reason"]
    assert "dead_hand" not in kinds(out) and g.ref.seats[1].out is None
    assert g.ref.seats[1].exposures == [["8D"] * 4]
    assert only(out, "exposure_accepted").data["tiles"] == ["8D"] * 4
    assert [x["id"] for x in g.ref.snapshot()["questions"]] == [q.data["id"]]


def test_confirming_applies_the_penalty_at_the_moment_it_happened():
    g = started()
    g.turn(0, "8D")
    g("claim", seat=1, purpose="exposure")
    q = only(g("exposure", seat=1, tiles=["2D", "8D", "2D", "2D"]), "question")
    out = g.answer(q.data["id"])
    assert only(out, "confirmed").data["penalties"] == ["dead_hand"]
    dead = only(out, "dead_hand")
    assert dead.seat == 1 and dead.t == q.t and "invalid exposure" in dead.data["reason"]
    assert g.ref.seats[1].out == "dead" and g.ref.turn == 2  # play moved on past the dead hand
    assert only(g.answer(q.data["id"]), "rejected")  # answered once


def test_answering_no_drops_the_question_for_good_even_after_a_later_correction():
    g = started()
    g.turn(0, "8D")
    g("claim", seat=1, purpose="exposure")
    q = only(g("exposure", seat=1, tiles=["2D", "8D", "2D", "2D"]), "question")
    assert only(g.answer(q.data["id"], confirmed=False), "question_dropped").data["reason"] == "answered no"
    g("discard", seat=1, tile="N")
    out = g("correction", person=True, action="undo")
    assert only(out, "corrected").data["state"]["questions"] == [] and g.ref.seats[1].out is None


def test_a_question_drops_once_another_player_discards_or_its_time_runs_out():
    g = started()
    g.turn(0, "8D")
    g("claim", seat=1, purpose="exposure")
    q = only(g("exposure", seat=1, tiles=["2D", "8D", "2D", "2D"]), "question")
    assert "question_dropped" not in kinds(g("discard", seat=1, tile="N"))  # her own discard: still open
    dropped = only(g.turn(2, "W"), "question_dropped")
    assert (dropped.data["id"], dropped.data["reason"]) == (q.data["id"], "play went on")
    assert "no open question" in only(g.answer(q.data["id"]), "rejected").data["reason"]
    g.turn(3, "8D")
    g("claim", seat=0, purpose="exposure")
    q = only(g("exposure", seat=0, tiles=["8D", "3C", "8D"]), "question")
    late = q.t + QUESTION_SECONDS + 1
    assert "no open question" in only(g("answer", person=True, t=late, index=q.data["id"]),
                                      "rejected").data["reason"]
    assert only(g("discard", seat=0, tile="N", t=late), "question_dropped").data["reason"] == "nobody answered"


def test_a_discard_out_of_turn_seen_by_the_camera_follows_the_table_and_only_asks():
    """The issue's camera recording: East 'discarding out of turn' and paying for the table. The camera's seat
    for a discard is evidence, not proof: the table played on, so the turn was hers."""
    g = started()
    g.turn(0, "N")
    out = g("discard", seat=2, tile="8B")  # South's turn, but the camera saw West discard
    q = only(out, "question")
    assert (q.seat, q.data["reason"]) == (2, "discarding out of turn")
    assert "dead_hand" not in kinds(out) and "discard_at_fault" not in kinds(out)
    assert g.ref.turn == 3 and g.ref.seats[2].total == 13  # the pick mahj did not see is supplied
    g("claim", seat=1, purpose="mahjong")
    assert payments(g("mahjong_declared", seat=1, tiles=EVENS)) == {0: -50, 1: 200, 2: -100, 3: -50}
    # (jokerless: doubled.) Confirmed in time, the same discard makes West dead and at fault: she alone pays.
    out = g.answer(q.data["id"])
    assert only(out, "dead_hand").seat == 2 and only(out, "discard_at_fault").data["fault"] == "out_of_turn"
    assert only(out, "settlement").data["payments"] == {"0": 0, "1": 200, "2": -200, "3": 0}
    assert g.ref.balances == {0: 0, 1: 200, 2: -200, 3: 0}


def test_a_camera_discard_before_east_s_first_is_a_game_joined_in_progress_not_a_redeal():
    g = started()
    out = g("discard", seat=3, tile="E")
    assert only(out, "question").data["penalty"] == "redeal"
    assert "game_over" not in kinds(out) and g.ref.stage.value == "play" and g.ref.turn == 0
    assert g.ref.window is not None and g.ref.window.tile == "E"


def test_a_camera_hand_that_does_not_verify_is_asked_about_and_stays_in_play():
    g = started()
    g.turn(0, "N")
    g("claim", seat=1, purpose="mahjong")
    out = g("mahjong_declared", seat=1, tiles=EVENS)  # the North she called is not in it: misread
    q = only(out, "question")
    assert q.data["penalty"] == "mahjong_in_error" and "mahjong_in_error" not in kinds(out)
    assert g.ref.seats[1].out is None and g.ref.stage.value == "play"
    confirmed = g.answer(q.data["id"])
    assert only(confirmed, "mahjong_in_error").seat == 1


def test_a_person_s_evidence_is_trusted_as_before():
    g = started()
    g.turn(0, "N")
    out = g("discard", seat=2, tile="8B", person=True)
    assert only(out, "dead_hand").seat == 2 and "question" not in kinds(out)
    g("claim", seat=1, purpose="mahjong", person=True)
    assert payments(g("mahjong_declared", seat=1, tiles=EVENS)) == {0: 0, 1: 200, 2: -200, 3: 0}
