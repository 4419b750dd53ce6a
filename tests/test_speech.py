"""Speech: sentences for rulings, real espeak-ng synthesis measured, and a queue that never blocks."""

import shutil
import time
import wave
from types import SimpleNamespace as R

import numpy as np
import pytest
from speech_kit import Voice

from assistant.profile import Profile
from assistant.speech import CALL, NOTICE, QUIET, Speaker, announcement_for, synthesize_wav

name = Profile(players=("Ada", "Bob", "Cy", "Di")).player


def _wav_stats(path):
    with wave.open(str(path)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64)
        return w.getnframes() / w.getframerate(), float(np.sqrt(np.mean(frames**2))) / 32768


def test_sentences_for_rulings():
    assert announcement_for(R(kind="window_opened", seat=1, data={"tile": "3B"}), name).text == "Bob, Three Bam"
    assert announcement_for(R(kind="window_closed", seat=None, data={}), name).text == "Window closed"
    mj = announcement_for(R(kind="mahjong_verified", seat=2, data={"value": 50, "jokerless": True}), name)
    assert mj.text == "Mah Jongg, Cy, 50, jokerless" and mj.level == QUIET
    pay = announcement_for(R(kind="settlement", seat=None,
                             data={"payments": {"0": -100, "1": -50, "2": 200, "3": -50}}), name)
    assert pay.text == "Ada pays 100. Bob pays 50. Di pays 50. Cy receives 200."
    claim = announcement_for(R(kind="claim_pending", seat=3, data={"purpose": "mahjong"}), name)
    assert claim.text == "Di calls for Mah Jongg"
    assert announcement_for(R(kind="help", seat=None, data={"message": "hand over the discards"}), name).text \
        == "Please check: hand over the discards"
    assert announcement_for(R(kind="something_new", seat=None, data={}), name) is None


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng (apt install espeak-ng)")
@pytest.mark.parametrize("rate", [120, 300])
def test_espeak_synthesises_audible_speech_and_rate_matters(tmp_path, rate):
    seconds, rms = _wav_stats(synthesize_wav("Three Bam. Window closed.", tmp_path / "a.wav", rate=rate))
    assert rms > 0.02, "silent WAV"
    if rate == 120:
        assert 1.2 < seconds < 4.0
    else:
        assert 0.4 < seconds < 1.5


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng")
def test_speaker_writes_each_announcement_to_wav_dir(tmp_path):
    sp = Speaker(wav_dir=tmp_path, verbosity="normal")
    sp.announce(R(kind="window_opened", seat=0, data={"tile": "RD"}), name)
    sp.announce(R(kind="turn", seat=1, data={}), name)  # verbose only: not said
    assert sp.drain(10)
    sp.close()
    files = sorted(tmp_path.glob("*.wav"))
    assert [f.name for f in files] == ["0001.wav"] and sp.spoken == ["Ada, Red Dragon"]
    seconds, rms = _wav_stats(files[0])
    assert seconds > 0.3 and rms > 0.02


@pytest.mark.skipif(not shutil.which("flite"), reason="optional voice: apt install flite")
def test_flite_voice(tmp_path):
    seconds, rms = _wav_stats(synthesize_wav("Three Bam", tmp_path / "f.wav", engine="flite", voice="slt"))
    assert seconds > 0.4 and rms > 0.02


def test_queue_never_blocks_and_drops_stale_announcements():
    first = "A long first sentence that takes a good few seconds to say"
    voice = Voice(lambda text: 5 if text == first else 0)
    sp = Speaker(play=voice, max_delay=0.2, queue_size=3)
    start = time.perf_counter()
    sp.say(first, priority=CALL)
    voice.wait_started()  # the worker is now busy saying "first"
    for i in range(10):
        sp.say(f"note {i}", level=1, kind="info", priority=NOTICE)
    sp.announce(R(kind="mahjong_verified", seat=0, data={"value": 25}), name)
    assert time.perf_counter() - start < 0.2, "enqueueing blocked"
    assert sp.drain(15)
    sp.close()
    # the result interrupted the long sentence, which is said again after it
    assert voice.texts == [first, "Mah Jongg, Ada, 25", first]
    assert not any(s.startswith("note") for s in voice.texts)
    assert sp.dropped >= 9


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng")
def test_say_command_writes_tile_names(tmp_path, capsys):
    from assistant.cli import main

    wav = tmp_path / "say.wav"
    assert main(["say", "--tiles", "3", "bam", "soap", "--wav", str(wav), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"text": "Three Bam, Soap"' in out
    seconds, rms = _wav_stats(wav)
    assert seconds > 0.8 and rms > 0.02
    assert main(["say", "--tiles", "ten", "bam"]) == 2


def _phonemes(text):
    import subprocess

    return subprocess.run(["espeak-ng", "-q", "-x", "-v", "en-us", text], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng")
def test_no_tile_sounds_like_a_seat():
    """A discarded East wind spoken "East" is heard as the seat East: every tile's spoken name must differ from
    every seat's name in what espeak-ng says (its phonemes), not only in spelling."""
    from assistant.profile import SEAT_NAMES
    from engine.tiles import TILES, spoken_name

    seats = {_phonemes(s) for s in SEAT_NAMES}
    assert len(seats) == 4
    for code in TILES:
        assert _phonemes(spoken_name(code)) not in seats, code
    assert spoken_name("E") == "East wind"


def test_no_audio_device_is_detected_and_said(monkeypatch, capsys):
    import assistant.commands.say as say_command
    import assistant.speech as speech
    from assistant.cli import main

    monkeypatch.setattr(speech, "audio_output", lambda: None)
    monkeypatch.setattr(say_command, "audio_output", lambda: None)
    monkeypatch.setattr(speech, "engine_available", lambda engine: True)
    monkeypatch.setattr(say_command, "engine_available", lambda engine: True)
    assert main(["say", "hello"]) == 2
    said = capsys.readouterr()
    assert "no audio device" in said.err and "--wav" in said.err and "said" not in said.out
    sp = Speaker()
    assert not sp.enabled and "no audio device" in sp.problem
    sp.close()


def test_a_new_discard_cuts_stale_speech_short(monkeypatch, tmp_path):
    """The synthesiser speaking an old discard is stopped when the next discard lands, and the new one is said."""
    import assistant.speech as speech

    started = []

    def slow(engine, text, voice, rate, volume, wav=None):
        started.append(text)
        return ["sleep", "10"] if len(started) == 1 else ["true"]

    monkeypatch.setattr(speech, "audio_output", lambda: "test")
    monkeypatch.setattr(speech, "engine_available", lambda engine: True)
    monkeypatch.setattr(speech, "synth_command", slow)
    sp = Speaker()
    sp.announce(R(kind="window_opened", seat=0, data={"tile": "1B"}), name)
    deadline = time.monotonic() + 5
    while not started and time.monotonic() < deadline:
        time.sleep(0.01)
    start = time.monotonic()
    sp.announce(R(kind="window_opened", seat=1, data={"tile": "E"}), name)
    assert sp.drain(5) and time.monotonic() - start < 3  # not the 10 s the stale one would have taken
    sp.close()
    assert sp.interrupted == 1 and started == ["Ada, One Bam", "Bob, East wind"]


def _timed_speaker(monkeypatch, seconds):
    """A Speaker whose synthesiser 'speaks' each text for seconds(text), recording what it started."""
    import assistant.speech as speech

    started = []

    def command(engine, text, voice, rate, volume, wav=None):
        started.append(text)
        return ["sleep", str(seconds(text))]

    monkeypatch.setattr(speech, "audio_output", lambda: "test")
    monkeypatch.setattr(speech, "engine_available", lambda engine: True)
    monkeypatch.setattr(speech, "synth_command", command)
    return Speaker(), started


def _wait_started(started, n=1):
    deadline = time.monotonic() + 5
    while len(started) < n and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_discard_cuts_a_camera_notice_and_goes_ahead_of_waiting_ones(monkeypatch):
    """A long "Please check: the camera ..." must not hold a discard back (the window on it is open now)."""
    sp, started = _timed_speaker(monkeypatch, lambda text: 10 if "camera" in text else 0.1)
    sp.announce(R(kind="help", seat=None, data={"message": "the camera is dropping frames", "source": "camera",
                                                "problem": "frames_dropped"}), name)
    _wait_started(started)
    sp.announce(R(kind="help", seat=None, data={"message": "the light changed", "source": "camera",
                                                "problem": "light"}), name)
    sp.announce(R(kind="window_opened", seat=3, data={"tile": "8B"}), name)
    assert sp.drain(5)
    sp.close()
    assert sp.interrupted == 1
    assert started == ["Please check: the camera is dropping frames", "Di, Eight Bam",
                       "Please check: the light changed"]


def test_a_discard_never_cuts_a_mah_jongg(monkeypatch):
    sp, started = _timed_speaker(monkeypatch, lambda text: 0.5)
    sp.announce(R(kind="mahjong_verified", seat=0, data={"value": 25}), name)
    _wait_started(started)
    sp.announce(R(kind="window_opened", seat=3, data={"tile": "8B"}), name)
    assert sp.drain(5)
    sp.close()
    assert sp.interrupted == 0 and started == ["Mah Jongg, Ada, 25", "Di, Eight Bam"]


# --- issue 43: what is said is true, the most important first ---------------------------------------------------

def _rule(sp, kind, seat=None, **data):
    return sp.announce(R(kind=kind, seat=seat, data=data), name)


def _speaker(seconds):
    voice = Voice(seconds)
    return Speaker(play=voice, verbosity="verbose"), voice


def test_window_closed_is_never_said_after_the_next_discard():
    """"North, One Bam" then a "Window closed" that was about the discard before it told a player that a tile
    she could still call was gone."""
    sp, voice = _speaker(lambda text: 0.4)
    _rule(sp, "window_opened", 2, tile="3C")
    assert voice.wait_started()
    _rule(sp, "window_closed")  # waits behind "Cy, Three Crak"
    _rule(sp, "window_opened", 3, tile="1B")
    assert sp.drain(5)
    sp.close()
    assert "Window closed" not in voice.texts and voice.texts[-1] == "Di, One Bam"


def test_mah_jongg_cuts_a_question_the_game_answered():
    """A reader's question raised in the frame of the verified Mah Jongg ("Did East take the North wind ...")
    was said in full, 6 s, before the Mah Jongg. The Mah Jongg ends it: cut at once, never said again."""
    question = "Did Ada take the North wind for Mah Jongg? Press the call button to claim it."
    sp, voice = _speaker(lambda text: 6.0 if "Did Ada" in text else 0.2)
    _rule(sp, "window_opened", 3, tile="N")
    assert voice.wait_started()
    time.sleep(0.3)  # said
    _rule(sp, "help", 0, message=question, source="reader")
    assert voice.wait_started(2)  # the question is being said
    start = time.monotonic()
    _rule(sp, "mahjong_verified", 0, value=30)
    _rule(sp, "settlement", payments={"0": 60, "1": -20, "2": -20, "3": -20})
    assert voice.wait_started(3)
    assert voice.start_of("Mah Jongg, Ada, 30") - start < 0.5
    assert sp.drain(5)
    sp.close()
    assert voice.texts == ["Di, North wind", f"Please check: {question}", "Mah Jongg, Ada, 30",
                           "Bob pays 20. Cy pays 20. Di pays 20. Ada receives 60."]
    assert sp.log[1].cut == "untrue"


def test_an_answer_interrupts_the_payments_which_are_said_again():
    """`r` after the game was answered 6.2 s later, behind the payments."""
    pay = "Bob pays 100. Cy pays 100. Di pays 100. Ada receives 300."
    sp, voice = _speaker(lambda text: 5.0 if text == pay else 0.2)
    _rule(sp, "mahjong_verified", 0, value=25)
    _rule(sp, "settlement", payments={"0": 300, "1": -100, "2": -100, "3": -100})
    assert voice.wait_started(2)
    asked = time.monotonic()
    sp.answer(lambda: "Mah Jongg verified for Ada, 25 points.", "news")
    assert voice.wait_started(3) and voice.start_of("Mah Jongg verified for Ada, 25 points.") - asked < 0.5
    assert sp.drain(10)
    sp.close()
    assert voice.texts == ["Mah Jongg, Ada, 25", pay, "Mah Jongg verified for Ada, 25 points.", pay]
    assert [s.cut for s in sp.log] == ["", "interrupted", "", ""]


def test_a_short_sentence_is_let_finish():
    sp, voice = _speaker(lambda text: 0.3)
    _rule(sp, "window_opened", 1, tile="5D")
    assert voice.wait_started()
    _rule(sp, "claim_pending", 2, purpose="exposure")  # more important, but "Bob, Five Dot" is nearly said
    assert sp.drain(5)
    sp.close()
    assert voice.texts == ["Bob, Five Dot", "Cy calls"] and sp.interrupted == 0


def test_an_answered_question_is_never_said():
    sp, voice = _speaker(lambda text: 1.0)
    _rule(sp, "window_opened", 1, tile="5D")
    assert voice.wait_started()
    _rule(sp, "question", 1, id=4, reason="invalid exposure", penalty="dead_hand")
    _rule(sp, "question", 2, id=5, reason="discard out of turn", penalty="pays_for_table")
    _rule(sp, "question_dropped", 1, id=4, reason="answered no")
    _rule(sp, "confirmed", 2, id=5, state={"stage": "play", "seats": []})
    assert sp.drain(5)
    sp.close()
    assert not any("camera saw" in t for t in voice.texts)


def test_an_answer_is_made_again_when_what_it_answers_changes_before_it_is_said():
    sp, voice = _speaker(lambda text: 2.0)
    turn = ["Bob"]
    sp.announce(R(kind="question", seat=None, data={"id": 1, "reason": "a fault"}), name)  # busy for 2 s
    assert voice.wait_started()
    sp.answer(lambda: f"It is {turn[0]}'s turn.", "turn")
    turn[0] = "Cy"
    _rule(sp, "turn", 2)  # the answer waiting is about the turn before
    assert sp.drain(10)
    sp.close()
    assert "It is Cy's turn." in voice.texts and "It is Bob's turn." not in voice.texts


def test_unnamed_seats_are_said_as_players_not_winds():
    """"North, East wind": the seat sounded like a wind next to the tile."""
    from assistant.speech import spoken_seat

    unnamed = spoken_seat(Profile().player)
    said = announcement_for(R(kind="window_opened", seat=3, data={"tile": "E"}), unnamed)
    assert said.text == "North player, East wind"
    assert announcement_for(R(kind="window_opened", seat=3, data={"tile": "E"}), spoken_seat(name)).text \
        == "Di, East wind"


def test_no_audio_is_said_once_when_a_watch_starts():
    """The no-audio message was printed twice: by the speaker's log warning and by the watch. Run as the CLI
    runs (a process of its own, no logging set up: a warning would reach stderr)."""
    import subprocess
    import sys

    code = ("import assistant.speech as s; s.audio_output = lambda: None; s.engine_available = lambda e: True\n"
            "from contextlib import ExitStack\nfrom assistant.profile import Profile\n"
            "from assistant.wiring import Options, build\n"
            "with ExitStack() as stack:\n"
            "    a = build(Profile(), Options(display=False, board_port='none'), stack)\n"
            "    assert a.speaker is not None and not a.speaker.enabled\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (done.stdout + done.stderr).count("no audio device") == 1


def test_answers_never_hold_up_the_mah_jongg():
    """A 'who' answer made again and a 'repeat' were said before the Mah Jongg, heard 5.3 s after its
    verification (bench_speech, game 123). The Mah Jongg goes first and cuts a long answer, said again later."""
    sp, voice = _speaker(lambda text: 3.0 if text.startswith("It is") else 0.3)
    long_answer = "It is a long answer about the seat winds, and it takes a while to say."
    sp.answer(lambda: long_answer, "game")
    assert voice.wait_started()
    sp.answer(lambda: "Something else she asked.", "game")  # answers do not cut answers: it waits
    start = time.monotonic()
    _rule(sp, "mahjong_verified", 0, value=30)
    assert voice.wait_started(2) and voice.start_of("Mah Jongg, Ada, 30") - start < 0.5
    assert sp.drain(10)
    sp.close()
    assert voice.texts == [long_answer, "Mah Jongg, Ada, 30", "Something else she asked.", long_answer]


def test_an_answer_cut_while_heard_is_not_made_again():
    """It was true when it began; what changed it is said next. Made again, it held discards up 2 s."""
    sp, voice = _speaker(lambda text: 3.0)
    turn = ["Bob"]
    sp.answer(lambda: f"It is {turn[0]}'s turn, and this answer takes a while to say.", "turn")
    assert voice.wait_started()
    turn[0] = "Cy"
    _rule(sp, "turn", 2)
    assert sp.drain(5)
    sp.close()
    assert voice.texts == ["It is Bob's turn, and this answer takes a while to say.", "Cy's turn"]
    assert sp.log[0].cut == "untrue"


def test_a_discard_cuts_a_long_answer_which_is_said_again():
    """The window to call a discard is short: it is not kept behind an answer (bench_speech, game 108: 1.9 s)."""
    winds = "Ada sits East. Bob sits South. Cy sits West. Di sits North."
    sp, voice = _speaker(lambda text: 3.0 if text == winds else 0.3)
    sp.answer(lambda: winds, "game")
    assert voice.wait_started()
    start = time.monotonic()
    _rule(sp, "window_opened", 3, tile="8B")
    assert voice.wait_started(2) and voice.start_of("Di, Eight Bam") - start < 0.5
    assert sp.drain(10)
    sp.close()
    assert voice.texts == [winds, "Di, Eight Bam", winds]


def test_an_answer_cuts_the_mah_jongg_which_is_said_again():
    """A key press during the Mah Jongg is answered at once; the Mah Jongg is then said in full."""
    sp, voice = _speaker(lambda text: 3.0 if text.startswith("Mah Jongg") else 0.3)
    _rule(sp, "mahjong_verified", 0, value=30)
    assert voice.wait_started()
    start = time.monotonic()
    sp.answer(lambda: "It is nobody's turn now.", "turn")
    assert voice.wait_started(2) and voice.start_of("It is nobody's turn now.") - start < 0.5
    assert sp.drain(10)
    sp.close()
    assert voice.texts == ["Mah Jongg, Ada, 30", "It is nobody's turn now.", "Mah Jongg, Ada, 30"]


def test_an_answer_cut_by_a_discard_and_made_again_stays_behind_it():
    """The discard cut a 'who' answer; the turn ruling that follows every discard then made the answer again,
    ranked as a fresh answer ahead of the discard: the discard waited 2 s (bench_speech, game 107)."""
    sp, voice = _speaker(lambda text: 3.0 if text.startswith("It is") else 0.3)
    turn = ["Bob"]
    sp.answer(lambda: f"It is {turn[0]}'s turn, the answer takes a while.", "turn")
    assert voice.wait_started()
    start = time.monotonic()
    _rule(sp, "window_opened", 1, tile="5D")
    turn[0] = "Cy"
    _rule(sp, "turn", 2)
    assert voice.wait_started(2) and voice.start_of("Bob, Five Dot") - start < 0.5
    assert sp.drain(10)
    sp.close()
    assert voice.texts[:2] == ["It is Bob's turn, the answer takes a while.", "Bob, Five Dot"]
    assert "It is Cy's turn, the answer takes a while." in voice.texts


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng")
def test_no_silence_after_the_last_word(tmp_path):
    """espeak-ng ends a sentence with a third of a second of silence unless told not to: the next sentence (a
    discard, an answer) waited that long behind every one."""
    with wave.open(str(synthesize_wav("Window closed", tmp_path / "w.wav"))) as w:
        frames = np.abs(np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.int32))
        rate = w.getframerate()
    last_sound = np.nonzero(frames > 300)[0][-1]
    assert (len(frames) - last_sound) / rate < 0.05


SENTENCES = ["Bob, Three Bam", "North player, Red Dragon", "Window closed", "It is the West player's turn.",
             "Mah Jongg, Ada, 25, self-picked", "Ada pays 50. Bob pays 25. Di pays 25. Cy receives 100.",
             "Please check: the camera is dropping frames", "Ada sits East. Bob sits South."]


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng")
@pytest.mark.parametrize("rate", [120, 165, 250])
def test_how_long_a_sentence_takes_is_near_what_espeak_ng_takes(tmp_path, rate):
    """Counted as words at the rate, "Bob, Three Bam" was 1.1 s for espeak-ng's 1.3 s and a payments sentence
    2.9 s for its 4.2 s: the speaker let them finish before an answer, taking them for nearly over."""
    from assistant.speech_timing import spoken_seconds

    for i, text in enumerate(SENTENCES):
        real, _ = _wav_stats(synthesize_wav(text, tmp_path / f"{i}.wav", rate=rate))
        assert abs(spoken_seconds(text, rate) - real) <= 0.2 * real, (text, real)


def test_an_answer_does_not_wait_for_a_discard_with_a_while_to_go():
    """"Bob, Three Bam" takes espeak-ng 1.3 s; taken for 1.1 s (three words), it was let finish 0.8 s in, and
    the answer waited out its last half second (bench_speech: answers p95 1.03 s)."""
    from assistant.speech_timing import spoken_seconds

    sp, voice = _speaker(lambda text: 1.3 if text == "Bob, Three Bam" else 0.3)
    _rule(sp, "window_opened", 1, tile="3B")
    assert voice.wait_started()
    time.sleep(spoken_seconds("Bob, Three Bam", sp.rate) - 0.45)
    start = time.monotonic()
    sp.answer(lambda: "It is Cy's turn.", "turn")
    assert voice.wait_started(2) and voice.start_of("It is Cy's turn.") - start < 0.3
    assert sp.drain(10)
    sp.close()
    assert voice.texts == ["Bob, Three Bam", "It is Cy's turn.", "Bob, Three Bam"]


def test_a_discard_waits_only_for_a_sentence_about_to_end():
    """The reader needs 0.3 s to be sure of a discard, so it may wait 0.2 s more at most: with 0.45 s of a
    sentence to go it cuts it (said again after it); with less than 0.2 s it lets it finish."""
    from assistant.speech_timing import spoken_seconds

    dead = "Bob's hand is dead"
    length = spoken_seconds(dead, 165)
    for left, texts in ((0.45, [dead, "Di, Eight Bam", dead]), (0.05, [dead, "Di, Eight Bam"])):
        sp, voice = _speaker(lambda text: length + 0.1 if text == dead else 0.3)
        _rule(sp, "dead_hand", 1)
        assert voice.wait_started()
        time.sleep(length - left)
        start = time.monotonic()
        _rule(sp, "window_opened", 3, tile="8B")
        assert voice.wait_started(2) and voice.start_of("Di, Eight Bam") - start < 0.3 + (left < 0.2) * 0.3
        assert sp.drain(10)
        sp.close()
        assert voice.texts == texts


def test_a_short_answer_is_heard_whole_before_the_discard():
    """A key press 50 ms before a discard: the discard cut the answer before a word of it was heard, and it came
    only after the discard, 1.8 s after the key press (bench_speech, game 110). A "who" answer takes a second;
    the discard waits for it."""
    answer = "West player's turn."
    sp, voice = _speaker(lambda text: 1.1 if text == answer else 0.3)
    start = time.monotonic()
    sp.answer(lambda: answer, "game")
    assert voice.wait_started()
    time.sleep(0.05)
    _rule(sp, "window_opened", 1, tile="4D")
    assert sp.drain(10)
    sp.close()
    assert voice.texts == [answer, "Bob, Four Dot"] and not sp.log[0].cut
    assert voice.start_of(answer) - start < 0.3
