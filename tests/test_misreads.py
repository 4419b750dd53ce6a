"""The camera alone never penalises, measured: many of the referee's seeded games seen through a tile reader that
misreads a chosen share of faces (confidently: a misread the reader cannot doubt), with nobody at the keyboard.

No misread may cost anyone (no dead hand, Mah Jongg in error, discard at fault, redeal or paying for the table),
and every penalty the camera's evidence would give must still apply when a person confirms it. The games are the
ones the video generator renders (engine.referee.scripted), seen as the table reader reports them
(datasets.misreads.camera_view); the bundled recordings are read through the misreading oracle in
test_watch_questions.py, and bench/bench_misreads.py prints these figures for any number of games.
"""

import pytest

from assistant.pipeline import Assistant
from assistant.profile import Profile
from assistant.wiring import load_game_card, load_scoring
from datasets.misreads import Misreader, camera_view
from engine.referee import Referee
from engine.referee.scripted import scripted_game

GAMES = 50
#: The rulings that cost someone; a verified Mah Jongg's ``pays_for_table`` is checked apart.
PENALTIES = {"dead_hand", "mahjong_in_error", "discard_at_fault", "redeal", "challenge_upheld"}
#: The ruling a confirmed question of each penalty brings.
CONFIRMED_AS = {"dead_hand": "dead_hand", "mahjong_in_error": "mahjong_in_error",
                "pays_for_table": "discard_at_fault", "redeal": "redeal"}


@pytest.fixture(scope="module")
def table():
    profile = Profile(players=("Ada", "Bob", "Cy", "Di"))
    card, scoring = load_game_card(profile), load_scoring(profile)
    return profile, card, scoring, {seed: scripted_game(card, scoring, seed=seed) for seed in range(GAMES)}


def watch(table, seed: int, rate: float, confirm_first: bool = False):
    """One game through the assistant; ``confirm_first``: a person answers yes to the first question at once."""
    profile, card, scoring, games = table
    a = Assistant(Referee(card, scoring), profile.players)
    a.start_game(0.0)
    misreader = Misreader(rate, seed)
    asked = None
    for obs in camera_view(games[seed].events, misreader):
        a.t = obs.t
        a.observe([obs])
        if confirm_first and asked is None:
            asked = next((r for r in a.rulings if r.kind == "question"), None)
            if asked is not None:
                a.inbox.put({"action": "answer", "id": asked.data["id"], "confirmed": True, "source": "keyboard"})
                a.handle_requests()
    return a, misreader, asked


@pytest.mark.parametrize("rate, most_questions_per_game", [(0.05, 1.0), (0.20, None)])
def test_misreads_never_penalise_anyone(table, rate, most_questions_per_game, record_property):
    questions = misread = verified = 0
    for seed in range(GAMES):
        a, misreader, _ = watch(table, seed, rate)
        penalties = [f"{r.kind}: {r.data.get('reason', '')}" for r in a.rulings if r.kind in PENALTIES]
        assert not penalties, f"seed {seed}: {penalties}"
        wins = [r for r in a.rulings if r.kind == "mahjong_verified"]
        assert all(r.data["pays_for_table"] is None for r in wins), f"seed {seed}"
        verified += len(wins)
        questions += sum(r.kind == "question" for r in a.rulings)
        misread += misreader.misread
    record_property("questions_per_game", questions / GAMES)
    print(f"misread {rate:.0%}: {misread} faces misread, {questions / GAMES:.2f} questions per game, "
          f"{verified} of {GAMES} Mah Jonggs verified")
    assert misread > GAMES * rate * 10 and questions > 0  # the misreads happened and cost something to ask
    if most_questions_per_game is not None:
        assert questions / GAMES <= most_questions_per_game


def test_every_fault_the_camera_sees_applies_once_a_person_confirms_it(table):
    """Whatever the camera's evidence would punish (here: the first question of each game misread at 20 %), a
    person's yes applies it: the camera asks, it does not forgive."""
    confirmed = 0
    for seed in range(0, GAMES, 3):
        a, _, asked = watch(table, seed, 0.20, confirm_first=True)
        if asked is None:
            continue
        after = a.rulings[a.rulings.index(asked):]
        yes = next(r for r in after if r.kind == "confirmed")
        assert yes.data["id"] == asked.data["id"]
        penalty = CONFIRMED_AS[asked.data["penalty"]]
        assert any(r.kind == penalty and r.seat == asked.seat for r in after[after.index(yes):]), (
            f"seed {seed}: {asked.data} confirmed without {penalty}")
        confirmed += 1
    assert confirmed >= 10
