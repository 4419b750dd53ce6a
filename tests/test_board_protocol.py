"""Board protocol framing and the ruling -> signal table (no board needed)."""

import re
from types import SimpleNamespace

import pytest

from hardware import protocol as proto
from hardware import signals
from hardware.signals import BoardState


def test_crc_is_xmodem():
    assert proto.crc16_xmodem(b"123456789") == 0x31C3
    assert proto.crc16_xmodem(b"") == 0


def test_frame_round_trip():
    line = proto.command(17, "LEDS", "amber", "1", "1B00")
    assert line.endswith(b"\n") and b"*" in line
    frame = proto.parse(line)
    assert (frame.kind, frame.number, frame.fields[1:]) == ("C", 17, ("LEDS", "amber", "1", "1B00"))


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"C 1 PING*0000", "CRC mismatch"),
        (b"C 1 PING", "no '*CRC'"),
        (b"C 1 PING*d48d", "upper-case"),
        (b"C 1\x07 PING*D48D", "non-printable"),
        (b"A" * 90 + b"*0000", "longer"),
    ],
)
def test_parse_rejects_with_reason(line, why):
    with pytest.raises(proto.ProtocolError, match=re.escape(why)):
        proto.parse(line)


def test_parse_rejects_flipped_bit():
    good = bytearray(proto.command(3, "BEEP", 2000, 50, 0, 1))
    good[4] ^= 0x01
    with pytest.raises(proto.ProtocolError, match="CRC"):
        proto.parse(bytes(good))


def test_splitter_resynchronises_after_partial_and_overlong_lines():
    splitter = proto.LineSplitter()
    tail_of_old_line = b"3 BOOT 1 0.1.0 power*F57A\n"  # what a port opened mid-line shows first
    noise = b"\xff" * 200  # no line end for longer than a line
    good = proto.frame("H 1000 1 LINK")
    lines = splitter.feed(tail_of_old_line + noise + b"\n" + good[:5]) + splitter.feed(good[5:])
    assert splitter.dropped == 1
    with pytest.raises(proto.ProtocolError):
        proto.parse(lines[0])
    assert proto.parse(lines[-1]).kind == "H"


def test_command_rejects_bad_sequence_numbers():
    for seq in (0, 65536):
        with pytest.raises(proto.ProtocolError):
            proto.command(seq, "PING")


def ruling(kind, seat=None, **data):
    return SimpleNamespace(kind=kind, seat=seat, data=data, t=0.0)


def test_every_listed_ruling_kind_has_a_signal():
    for kind in ("window_opened", "window_closed", "claim_pending", "mahjong_verified", "mahjong_in_error",
                 "dead_hand", "turn"):
        assert signals.apply(BoardState(), ruling(kind, seat=1)) is not None, kind
    assert signals.apply(BoardState(), ruling("settlement")) is None
    assert signals.apply(BoardState(), SimpleNamespace()) is None  # not a ruling at all


def test_window_colours_follow_the_window():
    state = BoardState()
    for kind, colour in [("window_opened", "green"), ("claim_pending", "amber"), ("window_closed", "red")]:
        state, _ = signals.apply(state, ruling(kind, seat=0))
        assert state.window == colour


def test_turn_lights_one_seat_and_dead_seats_keep_blinking():
    state, beep = signals.apply(BoardState(), ruling("turn", seat=2))
    assert state.seats == ("0", "0", "1", "0") and beep is None
    state, beep = signals.apply(state, ruling("dead_hand", seat=1, reason="x"))
    assert state.seats == ("0", "B", "1", "0") and beep is not None
    state, _ = signals.apply(state, ruling("turn", seat=3))
    assert state.seats == ("0", "B", "0", "1")
    state, _ = signals.apply(state, ruling("turn", seat=1))  # the dead seat's own turn: fast blink
    assert state.seats == ("0", "F", "0", "0")
    state, _ = signals.apply(state, ruling("game_over"))
    assert state == BoardState(window="off", window_mode="0")


def test_leds_args_fit_one_line():
    state = BoardState(window="amber", window_mode="F", seats=("B", "F", "1", "0"))
    assert proto.parse(proto.command(65535, "LEDS", *state.leds_args())).fields[2:] == ("amber", "F", "BF10")


def test_protocol_document_examples_carry_correct_crcs():
    """Every example line in hardware/PROTOCOL.md's session parses (a person writing a board copies them)."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "hardware" / "PROTOCOL.md").read_text(encoding="utf-8")
    examples = [line.split(":", 1)[1].split("(")[0].strip() for line in doc.splitlines()
                if line.strip().startswith(("host:  C", "board: "))]
    assert len(examples) >= 7
    for text in examples:
        proto.parse(text.encode())


def test_counters_compare_across_the_wrap():
    from hardware.protocol import ahead, next_number

    assert [ahead(1, 65535), ahead(2, 65534), ahead(5, 5), ahead(65535, 1), ahead(3, 2)] == [1, 3, 0, -1, 1]
    assert [next_number(65535), next_number(1, -1), next_number(7)] == [1, 65535, 8]
