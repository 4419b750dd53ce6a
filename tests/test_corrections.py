"""Corrections a person can trust: each says what it will change before it applies, `u` takes back exactly the
last thing people saw (a correction that came after the last event before that event), and nothing ends or
restarts a game without an ok."""

import io

from referee_kit import EVENS, Table, kinds, only

from assistant.console import Console
from assistant.pipeline import Assistant
from assistant.profile import Profile
from assistant.wiring import load_game_card, load_scoring, parse_key_command
from engine.referee import Referee
from engine.referee import events as rev


def _assistant() -> Assistant:
    profile = Profile(players=("Ada", "Bob", "Cy", "Di"))
    a = Assistant(Referee(load_game_card(profile), load_scoring(profile)), profile.players)
    a.start_game(0.0)
    return a


def _type(a: Assistant, line: str) -> None:
    a.inbox.put(parse_key_command(line) | {"source": "keyboard"})
    a.handle_requests()


def test_u_after_a_tile_correction_takes_back_the_correction_not_the_discard():
    """The issue: after `f 3 crak`, `u` took back the discard itself (a redeal, game over)."""
    a = _assistant()
    a.apply(rev.Discard(1.0, 0, "5D"))
    _type(a, "f 3 crak")
    assert a.referee.window.tile == "3C"
    events = len(a.referee.events)
    _type(a, "u")
    assert a.referee.window.tile == "5D" and len(a.referee.events) == events
    assert a.referee.stage.value == "play" and a.rulings[-2].data["action"] == "revert"
    _type(a, "u")  # now the discard was the last thing: taken back, play goes on before it
    assert a.referee.window is None and len(a.referee.events) == events - 1


def test_every_correction_says_what_it_changes_before_it_applies():
    a = _assistant()
    a.console = Console(a.name, stream=io.StringIO())
    a.apply(rev.Discard(1.0, 0, "5D"))
    _type(a, "f 3 crak")
    lines = a.console.out.getvalue().splitlines()
    said = next(i for i, x in enumerate(lines) if "CORRECTION:" in x)
    assert said < next(i for i, x in enumerate(lines) if "corrected" in x)
    assert lines[said].endswith("The correction makes it Ada's discard of Three Crak: the live discard is Three Crak.")
    assert "the live discard is Three Crak" in " ".join(a.view.snapshot()["log"])


def test_a_correction_that_would_end_or_restart_a_game_waits_for_ok():
    a = _assistant()
    a.apply(rev.Discard(1.0, 0, "8B"))
    a.apply(rev.Claim(1.5, 1, "mahjong"), source="keyboard")
    a.apply(rev.MahjongDeclared(2.0, 1, tuple(EVENS)), source="keyboard")
    assert a.referee.stage.value == "over"
    _type(a, "u")  # would take back the Mah Jongg: the game back in play, the settlement undone
    assert a.referee.stage.value == "over" and a.pending is not None
    assert "the game is back in play" in a.view.snapshot()["pending"]
    _type(a, "cancel")
    assert a.referee.stage.value == "over" and a.pending is None and a.view.snapshot()["pending"] == ""
    _type(a, "u")
    _type(a, "ok")
    assert a.referee.stage.value == "play" and a.referee.balances == {0: 0, 1: 0, 2: 0, 3: 0}
    _type(a, "ok")
    assert a.view.snapshot()["help"] == "no correction is waiting for an ok"


def test_revert_takes_back_a_correction_or_an_answer_only_while_it_is_the_last_thing():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g("correction", action="fix", index=len(g.ref.events) - 1,
      event={"type": "discard", "t": g.t, "seat": 0, "tile": "3C", "named": "3C"})
    assert g.ref.can_revert() and g.ref.window.tile == "3C"
    assert only(g("correction", action="revert"), "corrected").data["action"] == "revert"
    assert g.ref.window.tile == "5D" and not g.ref.can_revert()
    assert "no correction to take back" in only(g("correction", action="revert"), "rejected").data["reason"]
    g("correction", action="undo")
    g.turn(0, "N")  # play went on after the undo: it stays
    assert "rejected" in kinds(g("correction", action="revert"))


def test_a_misread_tile_of_the_hand_shown_is_corrected_and_the_mahjong_then_verifies_on_ok():
    a = _assistant()
    a.apply(rev.Discard(1.0, 0, "8B"))
    misread = list(EVENS)
    misread[misread.index("4B")] = "4C"
    a.apply(rev.MahjongDeclared(2.0, 1, tuple(misread)))  # the camera's reading: no line matches, only asked
    assert a.view.snapshot()["question"] and a.referee.stage.value == "play"
    assert parse_key_command("hand 5 crak") .startswith("not done")
    _type(a, "hand 5C as 5D")
    assert a.view.snapshot()["help"] == "no hand shown holds 5C"
    _type(a, "hand four crak as four bam")  # that verifies it: the game would end, so it waits for an ok
    assert "the game ends" in a.view.snapshot()["pending"] and a.referee.stage.value == "play"
    _type(a, "ok")
    assert a.referee.stage.value == "over" and a.referee.balances[1] > 0
    assert a.view.snapshot()["question"] is None and a.view.snapshot()["mahjong"]["ok"]
