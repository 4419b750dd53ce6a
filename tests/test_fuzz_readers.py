"""Fuzz tests for the readers of outside input (issue 31): the journal reader and what a resume or a display does
with its records, the calibration loader, and the board line parser on both ends of the wire. Whatever comes in,
each either reads it or says why with its own error type, never another exception."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.commands.display import fold
from assistant.display import TableView
from assistant.journal import check_record, read_journal
from hardware import protocol as proto
from hardware.emulator import BoardEmulator
from vision.calibration import Calibration, CalibrationError

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True) | st.text(max_size=8)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)
kinds = st.sampled_from(["header", "event", "rulings", "observation", "notice", "other"]) | st.text(max_size=4)
keys = st.sampled_from(["kind", "frame", "event", "rulings", "observation", "notice", "source", "card_text",
                        "players", "seat", "data", "type", "t", "tiles"])
records = st.dictionaries(keys, json_values | kinds, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.text(max_size=40) | records.map(json.dumps), max_size=8))
def test_the_journal_reader_reads_or_reports_every_line(tmp_path, lines):
    path = tmp_path / "j.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    reported, numbers = [], []
    got = list(read_journal(path, report=reported.append, line_numbers=numbers))
    assert all(isinstance(r, dict) for r in got) and len(numbers) == len(got)
    assert all(r.startswith(f"{path}:") for r in reported)


@FUZZ
@given(recs=st.lists(records, max_size=6))
def test_resume_checks_and_the_display_fold_take_any_record(recs):
    for rec in recs:
        assert check_record(rec) is None or isinstance(check_record(rec), str)
    said = []
    fold(TableView(), recs, [f"j:{i}" for i in range(len(recs))], said.append)
    assert all(s.startswith("j:") for s in said)


@FUZZ
@given(data=json_values | records | st.fixed_dictionaries({"table_to_image": json_values, "image_size": json_values,
                                                             "bands": st.lists(records | json_values, max_size=3)}))
def test_the_calibration_loader_reads_or_names_the_file(data):
    try:
        Calibration.from_json(data, "cal.json")
    except CalibrationError as exc:
        assert str(exc).startswith("cal.json")


@FUZZ
@given(line=st.binary(max_size=100))
def test_the_board_line_parser_and_the_host_checks_take_any_bytes(line):
    try:
        frame = proto.parse(line)
    except proto.ProtocolError:
        return
    problem = proto.board_line_problem(frame)
    assert problem is None or isinstance(problem, str)


tokens = (st.sampled_from(["BTN", "HOLD", "FAILSAFE", "BOOT", "IDLE", "LINK", "0", "3", "4", "65535", "65536"])
          | st.from_regex(r"[0-9]{1,7}", fullmatch=True) | st.from_regex(r"[!-)+-~]{1,5}", fullmatch=True))


@FUZZ
@given(kind=st.sampled_from(["E", "H"]), fields=st.lists(tokens, min_size=1, max_size=5))
def test_a_crc_valid_board_line_the_host_accepts_has_the_fields_it_uses(kind, fields):
    """What board_line_problem lets through is what the driver reads without a second look (E 2 BTN x 100 and
    friends are stopped here)."""
    body = " ".join([kind, *fields]).encode()
    try:
        frame = proto.parse(body + b"*%04X" % proto.crc16_xmodem(body))
    except proto.ProtocolError:
        return
    if proto.board_line_problem(frame) is not None:
        return
    f = frame.fields
    if kind == "H":
        assert f[0].isdigit() and f[1].isdigit() and int(f[1]) <= 65535
    else:
        assert 1 <= int(f[0]) <= 65535
        if f[1] in ("BTN", "HOLD"):
            assert f[2].isdigit() and int(f[2]) < proto.SEATS and f[3].isdigit()
        if f[1] == "FAILSAFE":
            assert f[2].isdigit()


@FUZZ
@given(stream=st.binary(max_size=300))
def test_the_emulator_answers_any_bytes_with_lines_of_the_protocol(stream):
    board = BoardEmulator()
    board.read()  # its BOOT event
    board.write(stream + b"\n")
    for line in proto.LineSplitter().feed(board.read()):
        assert proto.parse(line).kind in ("A", "X", "E", "H")
