"""The annotated video (issue 33): every ruling stays long enough to read, and the video ends on the result."""

from types import SimpleNamespace as R

import cv2
import numpy as np

from assistant.annotate import HOLD_S, RESULT_S, AnnotatedWriter, result_lines

NAMES = ("East", "South", "West", "North")


def test_rulings_stay_up_and_the_video_ends_on_the_result(tmp_path):
    writer = AnnotatedWriter(tmp_path / "a.mp4", 10.0, (320, 240))
    frame = np.zeros((240, 320, 3), np.uint8)
    for text in ["window OPEN on 9B", "claim awarded", "MAH JONGG verified", "settlement", "later"]:
        writer.note(text)  # all in one frame, as a Mah Jongg and its settlement are ruled
    writer.write(frame, [], "over", None, 0.0)
    assert writer._shown() == ["later", "settlement", "MAH JONGG verified", "claim awarded"]  # newest first
    for _ in range(int(HOLD_S * 10) - 2):  # the notes are HOLD_S * 10 - 1 frames old after these
        writer.write(frame, [], "over", None, 0.0)
    assert len(writer._shown()) == 4  # still up after almost HOLD_S
    writer.write(frame, [], "over", None, 0.0)
    assert writer._shown() == ["later"]  # the latest stays; the rest have had their time
    rulings = [R(kind="mahjong_verified", seat=2, data={"value": 25, "discarder": 0, "jokerless": True,
                                                        "lines": [{"section": "13579", "number": 5, "text": "NNN"}]}),
               R(kind="settlement", seat=None, data={"payments": {"0": -50, "1": -25, "2": 100, "3": -25}})]
    lines = result_lines(rulings, lambda s: NAMES[s])
    assert lines == ["MAH JONGG: West, 25 points", "on East's discard, jokerless", "13579 #5: NNN",
                     "East -50, South -25, West +100, North -25"]
    assert writer.hold_result(lines) == RESULT_S * 10
    assert writer.hold_result([]) == 0
    writer.close()
    cap = cv2.VideoCapture(str(tmp_path / "a.mp4"))
    assert cap.get(cv2.CAP_PROP_FRAME_COUNT) == int(HOLD_S * 10) + RESULT_S * 10
