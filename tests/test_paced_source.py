"""A paced recording plays at its real speed from the moment the watch is ready, as a camera would deliver it:
the set-up on the first frame (calibration, loading the tile model) must not turn into a backlog of frames
handed over at once, which the latency benches then counted as the pipeline's delay (issue 43)."""

import time
from pathlib import Path

from assistant.sources import FrameSource

MOVES = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures" / "moves.mp4"


def test_the_clock_starts_after_the_first_frame_is_taken():
    source = FrameSource(MOVES, paced=True)
    frames = iter(source)
    first = next(frames)
    time.sleep(0.6)  # the watch setting itself up
    taken = [next(frames) for _ in range(6)]
    source.close()
    gaps = [b.shown_at - a.shown_at for a, b in zip(taken, taken[1:], strict=False)]
    # frames still come at the recording's own rate, not all at once to catch up with the 0.6 s
    assert min(gaps) > 0.5 / source.fps and taken[-1].shown_at - time.monotonic() > -0.2
    assert first.index == 0 and taken[0].index == 1
