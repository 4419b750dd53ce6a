"""What a blind player asks (issue 33): repeat, whose turn, seat winds, how many of a tile are out; from the
keyboard at ``mahj watch`` (spoken and printed) and in the snapshot the display's Ask buttons read."""

from types import SimpleNamespace

from assistant.display import TableView
from assistant.display.answers import ask
from assistant.wiring import answer_aloud, parse_key_command


def _view():
    view = TableView(("Ada", "Bob", "Cy", "Di"))
    for kind, seat, data in [("dealt", 0, {"east": 0, "game": 1}), ("window_opened", 1, {"tile": "3B"}),
                             ("claim_pending", 2, {"purpose": "exposure"}), ("claim_awarded", 2, {"tile": "3B"}),
                             ("exposure_accepted", 2, {"tiles": ["3B", "3B", "J"]}),
                             ("window_opened", 2, {"tile": "3B"}), ("turn", 3, {})]:
        view.apply({"kind": kind, "t": 0.0, "seat": seat, "data": data})
    return view


def test_answers_come_from_what_the_table_shows():
    view = _view()
    assert ask(view, "turn") == "Di's turn (North)."
    assert ask(view, "wind", seat=1) == "Bob sits South."
    assert ask(view, "wind") == "Ada sits East. Bob sits South. Cy sits West. Di sits North."
    # one Three Bam on the floor (the first was called away), two in Cy's exposure; her joker is no Three Bam
    assert ask(view, "out", tile="3B") == "3 Three Bams are out of 4: 1 discarded, 2 exposed."
    assert ask(view, "out", tile="J") == "1 Joker is out of 8: 0 discarded, 1 exposed."
    assert ask(view, "out", tile="N") == "No North winds are out yet (there are 4)."
    assert ask(view, "repeat") == "Cy discards Three Bam. Window open."
    assert view.snapshot()["answers"]["out"]["3B"] == ask(view, "out", tile="3B")
    fresh = TableView()
    assert ask(fresh, "repeat") == "Nothing has been said yet." and "not known" in ask(fresh, "turn")


def test_keys_ask_and_the_answer_is_spoken_and_printed():
    assert parse_key_command("r") == {"ask": "repeat", "seat": None}
    assert parse_key_command("who") == {"ask": "turn", "seat": None}
    assert parse_key_command("wind south") == {"ask": "wind", "seat": 1}
    assert parse_key_command("out 3 bams") == {"ask": "out", "tile": "3B"}
    assert "did you mean 'bam'" in parse_key_command("out 3 bma")
    assert "not a seat" in parse_key_command("wind sout")
    printed, said = [], []
    assistant = SimpleNamespace(view=_view(), console=SimpleNamespace(text=printed.append),
                                speaker=SimpleNamespace(answer=lambda make, topic: said.append((make(), topic))))
    answer_aloud(assistant, parse_key_command("out 3B"))
    text = "3 Three Bams are out of 4: 1 discarded, 2 exposed."
    assert printed == [text] and said == [(text, "floor")]


def test_seats_without_names_are_not_said_as_bare_winds():
    """Issue 43: "East sits East." answered the wind question at a table without names."""
    view = TableView(("East", "South", "West", "North"))
    assert ask(view, "wind") == "No names are set: the East, South, West and North seats are called by their wind."
    assert ask(view, "wind", seat=0) == "The East seat has no player's name set: it is called the East player."
    view.apply({"kind": "turn", "t": 0.0, "seat": 3, "data": {}})
    assert ask(view, "turn") == "North player's turn."
    mixed = TableView(("Ada", "Bob", "Cy", "North"))
    assert ask(mixed, "wind") == "Ada sits East. Bob sits South. Cy sits West. The North seat is called by its wind."
