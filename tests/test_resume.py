"""Resume after a crash at every record boundary of the bundled recordings' journals: the resumed game ends with
exactly the journal (events, rulings, observations, notices) of a run that never stopped. A crash is a journal
cut after any record, or with its last line torn; the recording is played again from its first frame."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("vision.reader", reason="needs the table reader")

from assistant.commands.demo import game_before, oracle_for  # noqa: E402
from assistant.journal import ResumeError, header_record, read_journal, referee_from_header  # noqa: E402
from assistant.pipeline import Assistant, run  # noqa: E402
from assistant.profile import Profile  # noqa: E402
from assistant.sources import FrameSource  # noqa: E402
from assistant.wiring import card_and_scoring_texts  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures"
RECORDINGS = ("moves", "camera", "demo")


@dataclass
class StillFrame:
    """A frame as the pipeline sees it; the picture is not needed once its observations are known."""

    index: int
    t: float
    image: object = None


class Recorded:
    """Wraps the real table reader on the first run and keeps what it saw per frame; later runs are served the
    same observations (the reader is deterministic given the same referee expectations, which a resume that
    rebuilds the game frame by frame gives it)."""

    def __init__(self, reader=None):
        self.reader = reader
        self.seen: dict[int, list] = {}

    def process(self, image, index, t, expectation):
        if self.reader is not None:
            self.seen[index] = self.reader.process(image, index, t, expectation)
        return self.seen[index]


class ListJournal(list):
    pass


def _assistant(header, journal):
    return Assistant(referee_from_header(header), ("Ada", "Bob", "Cy", "Di"), journal=journal)


@pytest.fixture(scope="module", params=RECORDINGS)
def uninterrupted(request):
    """(header, every record, frames, recorded reader) of one watched recording, read with its true boxes."""
    from vision.calibration import calibrate_frame
    from vision.reader import TableReader

    video = FIXTURES / f"{request.param}.mp4"
    source = FrameSource(video)
    frames, recorded = [], Recorded()
    header = header_record(*card_and_scoring_texts(Profile()), players=4)
    journal = ListJournal()
    a = _assistant(header, journal)

    def kept():
        for frame in source:
            if recorded.reader is None:
                recorded.reader = TableReader(calibrate_frame(frame.image), oracle_for(video), fps=source.fps)
            frames.append(StillFrame(frame.index, frame.t))
            yield frame

    run(a, kept(), recorded)
    source.close()
    recorded.reader = None
    records = json.loads(json.dumps(journal))  # as read back from the file
    return header, records, frames, recorded, json.loads(json.dumps([r.to_json() for r in a.rulings]))


def test_every_record_boundary_resumes_to_the_same_game(uninterrupted):
    header, records, frames, recorded, rulings = uninterrupted
    assert sum(r["kind"] == "event" and r["source"] == "camera" for r in records) >= 3
    for cut in range(len(records) + 1):
        journal = ListJournal()
        a = _assistant(header, journal)
        a.resume(records[:cut], frames_replay=True)
        run(a, frames, recorded)
        assert records[:cut] + json.loads(json.dumps(journal)) == records, f"resumed after record {cut}"
        assert json.loads(json.dumps([r.to_json() for r in a.rulings])) == rulings


def test_a_game_before_the_recording_and_requests_come_from_the_journal():
    """The demo's journal starts with the game before the recording (no frames show it), and a person's undo is
    no frame's either: both are replayed from the journal, at their place, wherever the crash fell after the
    game before was written."""
    prior = game_before(FIXTURES / "moves.mp4")
    header, before = prior[0], prior[1:]
    seen = Recorded()
    seen.seen = {0: [], 1: [], 2: []}
    frames = [StillFrame(0, 0.0), StillFrame(1, 0.03), StillFrame(2, 0.07)]
    a = _assistant(header, ListJournal())
    a.resume(before, frames_replay=True)
    run(a, frames, seen, on_frame=lambda f, _: f.index == 0 and a.request({"action": "undo", "source": "keyboard"}))
    whole = before + json.loads(json.dumps(a.journal))
    assert [r["source"] for r in whole[len(before):] if r["kind"] == "event"] == ["keyboard"]
    undo = next(i for i, r in enumerate(whole) if r.get("source") == "keyboard")  # after its preview notice
    for cut in range(len(before) - 1, len(whole) + 1):
        journal = ListJournal()
        b = _assistant(header, journal)
        b.resume(whole[:cut], frames_replay=True)
        run(b, frames, seen)
        got = whole[:cut] + json.loads(json.dumps(journal))
        want = whole if cut > undo else whole[:max(cut, len(before))]  # an undo not journaled was never made
        assert _without_frames(got) == _without_frames(want), f"resumed after record {cut}"
        assert cut <= undo or b.referee.snapshot() == a.referee.snapshot()


def _without_frames(records):
    """Rulings records without their frame: the game before a recording journals none, and the pipeline writes
    the one a crash lost with the frame it resumed at."""
    return [{k: v for k, v in r.items() if k != "frame" or r["kind"] != "rulings"} for r in records]


def test_an_altered_journal_is_named_not_resumed(uninterrupted):
    header, records, frames, recorded, _ = uninterrupted
    events = [i for i, r in enumerate(records) if r["kind"] == "event" and r["source"] == "camera"]
    swapped = list(records)
    swapped[events[0]], swapped[events[1]] = swapped[events[1]], swapped[events[0]]
    altered = json.loads(json.dumps(records))
    altered[events[0] + 1]["rulings"][0]["seat"] = 3 - altered[events[0] + 1]["rulings"][0]["seat"]
    for bad, line in ((swapped, events[0] + 1), (altered, events[0] + 2)):
        a = _assistant(header, ListJournal())
        with pytest.raises(ResumeError, match=rf"^game.jsonl:{line}: the resumed game departs"):
            a.resume(bad, list(range(1, len(bad) + 1)), "game.jsonl", frames_replay=True)
            run(a, frames, recorded)
        b = _assistant(header, ListJournal())  # a camera cannot play the game again: the journal's own rulings
        with pytest.raises(ResumeError, match=r"^game.jsonl:\d+: the resumed game departs"):
            b.resume(bad, list(range(1, len(bad) + 1)), "game.jsonl")


WATCH = ["watch", "--video", str(FIXTURES / "moves.mp4"), "--no-speech", "--no-display", "--board", "none"]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The journal of `mahj watch` on moves.mp4, uninterrupted."""
    from assistant.cli import main

    path = tmp_path_factory.mktemp("whole") / "whole.jsonl"
    assert main([*WATCH, "--journal", str(path)]) == 0
    return path


def test_a_camera_resume_finishes_the_assumed_charleston_and_the_rulings_in_flight(uninterrupted):
    """A camera cannot show the past again: its resume replays the journal, journals the rulings of the event in
    flight and the rest of an interrupted assumed Charleston, exactly as the uninterrupted run wrote them."""
    header, records, *_ = uninterrupted
    block = next(i for i, r in enumerate(records) if r["kind"] != "rulings" and r.get("source") != "assumed")
    for cut in range(1, block + 1):
        journal = ListJournal()
        _assistant(header, journal).resume(records[:cut])
        assert records[:cut] + json.loads(json.dumps(journal)) == records[:block], f"resumed after record {cut}"


def test_scores_a_little_off_in_their_last_digits_still_resume(uninterrupted):
    """Another machine's tile model gives the same game with scores differing in their last digits: that resumes;
    a real difference does not (test_an_altered_journal_is_named_not_resumed)."""
    header, records, frames, recorded, _ = uninterrupted
    nudged = json.loads(json.dumps(records))
    for rec in nudged:
        if rec["kind"] == "observation":
            rec["observation"]["confidence"] += 0.0004
    cut = max(i for i, r in enumerate(nudged) if r["kind"] == "observation")
    journal = ListJournal()
    a = _assistant(header, journal)
    a.resume(nudged[:cut], frames_replay=True)
    run(a, frames, recorded)
    assert nudged[:cut] + json.loads(json.dumps(journal)) == nudged[:cut] + records[cut:]


@pytest.mark.parametrize("cut", [5, 36])
def test_watch_resumes_a_torn_journal_exactly(tmp_path, whole, cut, capsys):
    """The issue's reproductions through `mahj watch`: a journal cut inside the assumed Charleston (5 records) or
    between the two events of one frame (36), its last line torn, resumes to the uninterrupted run's records;
    what was on disk stays as it was."""
    from assistant.cli import main

    lines = whole.read_bytes().splitlines(keepends=True)
    crashed = tmp_path / "crashed.jsonl"
    crashed.write_bytes(b"".join(lines[:cut]) + lines[cut][:20])
    before = crashed.read_bytes()
    assert main([*WATCH, "--journal", str(crashed)]) == 0
    assert crashed.read_bytes().startswith(before)
    assert list(read_journal(crashed, report=None)) == list(read_journal(whole))
    assert f"{crashed}:{cut + 1}: damaged line skipped" in capsys.readouterr().err


@pytest.mark.parametrize("line, problem", [
    ('{"kind":"observation","frame":3}', 'needs an object under "observation"'),
    ('{"kind":"observation","frame":3,"observation":{"type":"picked"}}', "observation record cannot be replayed"),
    ('{"kind":"event","frame":"abc","event":{"type":"deal","t":0}}', '"frame" must be a whole number'),
    ('{"kind":"event","frame":1,"event":5}', "event record cannot be replayed"),
    ('{"kind":5}', 'needs a "kind" string'),
    ('{"kind":"rulings","rulings":"x"}', 'needs a "rulings" list'),
])
def test_a_record_a_resume_cannot_use_is_named(tmp_path, whole, capsys, line, problem):
    from assistant.cli import main

    journal = tmp_path / "game.jsonl"
    journal.write_bytes(whole.read_bytes().splitlines(keepends=True)[0] + line.encode() + b"\n")
    assert main([*WATCH, "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {journal}:2: ") and problem in err and "Traceback" not in err


def test_a_bad_header_is_named_as_the_journal(tmp_path, whole, capsys):
    """A header whose card_text is not text, or a card that does not parse, is the journal's fault (its line),
    not the sample card's or the profile's."""
    from assistant.cli import main

    header = json.loads(whole.read_bytes().splitlines()[0])
    journal = tmp_path / "game.jsonl"
    for card_text, said in ((5, f"{journal}:1: header \"card_text\" must be a string"),
                            ("card: mine\n[s]\nFFF 2026 nonsense\n", f"{journal}:1 card:3:10: unknown symbol")):
        journal.write_text(json.dumps(header | {"card_text": card_text}) + "\n", encoding="utf-8")
        assert main([*WATCH, "--journal", str(journal)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {said}") and "sample" not in err


def test_an_altered_journal_stops_watch_with_its_line(tmp_path, whole, capsys):
    from assistant.cli import main

    lines = whole.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"source":"camera"' in line) + 1  # its rulings record
    rulings = json.loads(lines[at])
    rulings["rulings"][0]["t"] += 1
    lines[at] = json.dumps(rulings) + "\n"
    journal = tmp_path / "altered.jsonl"
    journal.write_text("".join(lines[:at + 3]), encoding="utf-8")
    assert main([*WATCH, "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {journal}:{at + 1}: the resumed game departs from the journal here: at "
                          "rulings[0].t")
    assert "Traceback" not in err


def test_a_full_disk_is_one_clear_error(tmp_path, monkeypatch, capsys):
    """The journal cannot be written (ENOSPC): one error naming the file, exit 2, and what was written stays."""
    import errno

    import assistant.journal
    from assistant.cli import main

    real, calls = assistant.journal.os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) > 6:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(assistant.journal.os, "fsync", fsync)
    journal = tmp_path / "game.jsonl"
    assert main([*WATCH, "--journal", str(journal)]) == 2
    out = capsys.readouterr()
    assert out.err.startswith(f"error: {journal}: cannot write the journal: No space left on device")
    assert "Traceback" not in out.out + out.err
    assert len(list(read_journal(journal))) >= 6
