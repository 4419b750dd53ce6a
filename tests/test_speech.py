"""Speech: sentences for rulings, real espeak-ng synthesis measured, and a queue that never blocks."""

import shutil
import threading
import time
import wave
from types import SimpleNamespace as R

import numpy as np
import pytest

from assistant.profile import Profile
from assistant.speech import QUIET, Speaker, announcement_for, synthesize_wav

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
    gate = threading.Event()
    said = []

    def slow_speak(text):
        gate.wait(5)
        said.append(text)

    sp = Speaker(speak=slow_speak, max_delay=0.2, queue_size=3)
    start = time.perf_counter()
    sp.say("first")
    time.sleep(0.05)  # the worker is now stuck speaking "first"
    for tile in ["1B", "2B", "3B", "4B", "5B"]:
        sp.announce(R(kind="window_opened", seat=0, data={"tile": tile}), name)
    for i in range(10):
        sp.say(f"note {i}", level=1, kind="info")
    sp.announce(R(kind="mahjong_verified", seat=0, data={"value": 25}), name)
    assert time.perf_counter() - start < 0.2, "enqueueing blocked"
    time.sleep(0.3)  # discards and notes are now stale; Mah Jongg may wait longer
    gate.set()
    assert sp.drain(5)
    sp.close()
    assert said[0] == "first"
    assert "Mah Jongg, Ada, 25" in said
    assert not any(s.startswith("Ada, One Bam") or s.startswith("note") for s in said)
    assert sp.dropped >= 14


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
    sp.announce(R(kind="help", seat=None, data={"message": "the camera is dropping frames"}), name)
    _wait_started(started)
    sp.announce(R(kind="help", seat=None, data={"message": "the light changed"}), name)
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
