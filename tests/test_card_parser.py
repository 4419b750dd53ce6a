"""The card notation's error reporting: every problem in the file, each at its exact file:line:col."""

import pytest

from engine.card import CardError, load_card, parse_card

GOOD_HEADER = "card: Test Card\nyear: 2026\n[Test]\n"


def errors(text: str, filename: str = "t.card") -> list[str]:
    with pytest.raises(CardError) as err:
        parse_card(text, filename)
    assert str(err.value) == "\n".join(err.value.diagnostics)
    return err.value.diagnostics


def test_several_errors_in_one_file_all_reported_in_order():
    text = (
        "card: Test Card\n"                         # 1
        "[Test]\n"                                  # 2
        "FF 2026a 2222b 222x X25\n"                 # 3: unknown symbol at col 19
        "FF 2026a 2222b 222 X25\n"                  # 4: 13 tiles; tag missing after 222 (col 19)
        "NNNN EEEE WWWW SS X25\n"                   # 5: fine
        "11 22 33 44 55 66 77 C50 shift 0,3\n"      # 6: shift 3 leaves 1-9 (col 34)
    )
    assert errors(text) == [
        "t.card:3:19: unknown symbol 'x' (expected 1-9, 0, F, N, E, W, S, D, then a tag a/b/c)",
        "t.card:4:1: 13 tiles (FF 2 + 2026a 4 + 2222b 4 + 222 3): a hand line has exactly 14",
        "t.card:4:19: group '222' needs a suit tag (a, b or c): other groups of this line have one",
        "t.card:6:34: shift 3 moves 7 to 10, outside 1-9",
    ]


@pytest.mark.parametrize("line, col, message", [
    ("NNNN EEEE WWWW SSS X25", 1, "15 tiles (NNNN 4 + EEEE 4 + WWWW 4 + SSS 3): a hand line has exactly 14"),
    ("FF 2026 2222b 2222c X25", 8, "group '2026' needs a suit tag"),
    ("FF 2026a 2222b 2222c X", 22, "bad value 'X'"),
    ("FF 2026a 2222b 2222c Y25", 22, "unknown symbol 'Y'"),
    ("FF 2026a 2222b 2222c", 21, "missing X<value> (exposed hand) or C<value> (concealed hand)"),
    ("FF 2026a 2222b 2222c X25 2", 26, "unexpected '2' after the value"),
    ("FF 2026a 2222b 2222c X25 shift any", 26, "shift any"),  # not an error: checked below
    ("NNNN EEEE WWWW SS X25 shift any", 23, "shift on a line without numbers"),
    ("11 22 33 44 55 66 77 C50 shift", 32, "shift needs 'any' or a list"),
    ("11 22 33 44 55 66 77 C50 shift 0,x", 34, "bad shift amount 'x'"),
    ("11 22 33 44 55 66 77 C50 shift -1", 32, "shift -1 moves 1 to 0, outside 1-9"),
    ('NNNN EEEE WWWW SS X25 "note', 23, 'unterminated note'),
    ('NNNN EEEE WWWW SS X25 "a" "b"', 27, "only one note per line"),
    ('NNNN EEEE WWWW SS "a" X25', 19, "the note must come after"),
    ("FFa NNNN EEEE WWWW X25", 3, "suit tag on 'FF', which has no suit"),
    ("11a 2a2 NNNN EEEE WWWW X25", 6, "suit tag 'a' must end the group"),
    ("111|2222 NNNN EEEE WWW X25", 1, "alternatives must have the same number of tiles"),
    ("111||222 NNNN EEEE WWWW X25", 5, "empty alternative"),
    ("J111 NNNN EEEE WWWW X25", 1, "unknown symbol 'J': jokers are not written on the card"),
    ("1B11 NNNN EEEE WWWW X25", 2, "unknown symbol 'B': suits are written as tags"),
    ("NNNN EEEE WWWW SS X25 X30", 23, "a line has one value"),
    ("NNNN EEEE WWWW SS C0", 20, "a hand's value must be at least 1"),
    ("shift any NNNN EEEE WWWW SS X25", 1, "shift must come after the X<value>"),
    ("X25 NNNN EEEE WWWW SS", 1, "the X<value> or C<value> comes after the tile groups"),  # once, not per group
    ('11 22 33 44 55 66 77 C50 "n" shift 0,1', 30, "shift must come before the note"),
    ("FF FF FF FF F NNNNN X25", 1, "impossible hand: needs 9 x F but the set holds 8 and jokers may stand for only 0"),
    ("11 11 11 NNNN NNNN X25", 1, "impossible hand: needs 6 x 1B but the set holds 4 and jokers may stand for only 0"),
    ("111111 111111 11 X25", 1, "impossible hand: needs at least 10 jokers but the set holds 8"),
    ("FFFFFFF 11111 NN X25", 1, "group 'FFFFFFF' has 7 identical tiles: the largest group is a sextet (6)"),
    ("FF 1111111 NNNNN X25", 4, "group '1111111' has 7 identical tiles"),
])
def test_each_error_kind_at_its_column(line, col, message):
    text = GOOD_HEADER + line + "\n"
    if message == "shift any":
        assert parse_card(text).lines[0].shifted
        return
    found = errors(text)
    assert len(found) == 1, found
    assert found[0].startswith(f"t.card:4:{col}: {message}"), found


def test_twelve_of_one_tile_is_possible_with_all_eight_jokers():
    card = parse_card(GOOD_HEADER + "111111 111111 FF X25\n")
    tiles = ["1B"] * 4 + ["J"] * 8 + ["F", "F"]
    assert card.verify(tiles).mahjong


def test_header_errors():
    text = "year: 2026\nfoo: bar\nyear: 2027\npublisher:\n[]\n[A]\n[A]\nNNNN EEEE WWWW SS X25\n[B\n"
    assert errors(text) == [
        "t.card:1:1: missing 'card: NAME' header",
        "t.card:2:1: unknown header 'foo' (expected card, year, publisher)",
        "t.card:3:1: header 'year' given twice",
        "t.card:4:11: header 'publisher' has no value",
        "t.card:5:1: empty section name",
        "t.card:7:2: section [A] appears twice",
        "t.card:9:3: section header needs a closing ]",
    ]


def test_hand_line_before_any_section():
    assert errors("card: X\nNNNN EEEE WWWW SS X25\n") == ["t.card:2:1: hand line before any [section] header"]


def test_comments_notes_and_columns_with_indentation():
    text = GOOD_HEADER + '   # a comment line\n  FF 2026a 2222b 2222c X25 "has # inside"  # trailing\n'
    card = parse_card(text)
    (line,) = card.lines
    assert line.note == "has # inside" and line.value == 25 and not line.concealed
    assert line.text == 'FF 2026a 2222b 2222c X25 "has # inside"'
    assert errors(GOOD_HEADER + "\n\n    FF 2026a 2222b 222q X25\n") == [
        "t.card:6:23: unknown symbol 'q' (expected 1-9, 0, F, N, E, W, S, D, then a tag a/b/c)"]


def test_line_numbers_count_within_sections():
    card = parse_card("card: X\n[A]\nNNNN EEEE WWWW SS X25\nNNNN EEEE WWWW SS C30\n[B]\nFF 1111 2222 3333 X25\n")
    assert [(ln.section, ln.number, ln.value, ln.concealed) for ln in card.lines] == [
        ("A", 1, 25, False), ("A", 2, 30, True), ("B", 1, 25, False)]
    assert card.cheapest_value == 25


def test_load_card_reports_file_name_and_non_utf8(tmp_path):
    path = tmp_path / "mine.card"
    path.write_bytes(b"card: X\n[A]\nNNNN EEEE WWWW SS X25\nNN \xff\n")
    with pytest.raises(CardError) as err:
        load_card(path)
    assert err.value.diagnostics == [f"{path}:4:4: not UTF-8 text"]
    path.write_text("card: X\n[A]\nNNNN EEEE WWWW S X25\n", encoding="utf-8")
    with pytest.raises(CardError) as err:
        load_card(path)
    assert err.value.diagnostics == [
        f"{path}:3:1: 13 tiles (NNNN 4 + EEEE 4 + WWWW 4 + S 1): a hand line has exactly 14"]


# ---- cards that would explode, and other hostile files (issue 31) --------------------------------------------
def test_a_line_of_alternatives_is_bounded_without_expanding_it(monkeypatch):
    """14 singles of nine alternatives each stand for about 10^13 hands: an error at the line, found from the
    line's shape; nothing is expanded (before: minutes of work or memory without end)."""
    import engine.card.compiled as compiled

    expanded = []
    real = compiled.expand
    monkeypatch.setattr(compiled, "expand", lambda line: expanded.append(line) or real(line))
    line = " ".join(["1|2|3|4|5|6|7|8|9"] * 14) + " X25"
    assert errors(GOOD_HEADER + "FF 2222 44 66 8888 X25\n  " + line + "\n") == [
        "t.card:5:3: this line stands for up to 68,630,377,364,883 concrete hands (alternatives x suits x shifts); "
        "the limit is 2,000: split it into several lines"]
    assert [x.source_line for x in expanded] == [4]


def test_a_card_past_the_total_limit_is_named_once():
    from engine.card.parser import MAX_CARD_VARIATIONS

    lines = MAX_CARD_VARIATIONS // 6 + 10  # each of these lines stands for 6 hands (3 tags on 3 suits)
    text = GOOD_HEADER + "".join(f"FF 2222a 44a 66b 8888c X{25 + i}\n" for i in range(lines))  # no two alike
    (only,) = errors(text)
    assert only.startswith(f"t.card:{4 + MAX_CARD_VARIATIONS // 6}:1: from this line on the card would stand for "
                           f"more than {MAX_CARD_VARIATIONS:,} concrete hands")


@pytest.mark.parametrize("line, col, message", [
    ("FFFF 2222 4444 66 X" + "9" * 5000, 20, "a hand's value is at most 10,000"),
    ("FFFF 2222 4444 66 X99999999999999999999999", 20, "a hand's value is at most 10,000"),
    ("FFFF 2222 4444 66 X２５", 19, "bad value 'X２５'"),
    ("1111 2222 3333 44 X25 shift 1" + "0" * 5000, 29, "bad shift amount '100000000000'"),
    ("1111 2222 3333 44 X25 shift ３", 29, "bad shift amount '３'"),
])
def test_huge_and_foreign_numbers_are_errors_not_tracebacks(line, col, message):
    (got,) = errors(GOOD_HEADER + line + "\n")
    assert got.startswith(f"t.card:4:{col}: {message}")


def test_only_line_feeds_end_lines():
    """Form feeds, \\x1c-\\x1e, \\x85 and \\u2028 are spaces inside a line, not line ends: line numbers stay right."""
    text = GOOD_HEADER + "NNNN\x0bEEEE\x0cWWWW\x1cSS X25\r\nNNNN\x85EEEE\u2028WWWW\x1eSS X30\nNNNN EEEE WWWW SS Y25\n"
    assert errors(text) == ["t.card:6:19: unknown symbol 'Y' (expected 1-9, 0, F, N, E, W, S, D, then a tag a/b/c)"]


def test_a_file_too_large_to_be_a_card_is_refused_before_it_is_read(tmp_path, monkeypatch):
    import engine.card as card_module

    monkeypatch.setattr(card_module, "MAX_CARD_BYTES", 1000)
    path = tmp_path / "huge.card"
    path.write_bytes(b"card: x\n" + b"#" * 2000)
    with pytest.raises(CardError, match=r"huge.card:1:1: larger than"):
        load_card(path)
