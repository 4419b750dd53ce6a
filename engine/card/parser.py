"""Reading the ``.card`` text format into ``CardLine`` objects, collecting every problem with its position.

The parser never stops at the first error: people type a whole card every April and want the full list of
mistakes in one go. It checks what can be seen on a line by itself (symbols, tags, tile count, shift range);
checks that need the expanded hands (more tiles of a kind than the set holds) happen in ``compiled``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from engine.card.model import NUMBERS, SYMBOLS, TAGS, CardLine, Diagnostic, Group, Slot

HAND_TILES = 14
MAX_GROUP = 6  # pung, kong, quint, sextet: no card has a larger group of one tile
HEADER_KEYS = ("card", "year", "publisher")
MAX_VALUE = 10_000  # a hand's value; the League's are 25 to 75
#: The most concrete hands one line may stand for, counted before duplicates are removed (alternatives x suit
#: assignments x shifts), and the most for a whole card. Found from the line's shape, without expanding it, so a
#: line of alternatives that would stand for trillions of hands is an error in microseconds; real cards are
#: far below (the sample card: 661 hands in all, 42 at most on one line).
MAX_LINE_VARIATIONS = 2_000
MAX_CARD_VARIATIONS = 20_000
_HEADER = re.compile(r"^([A-Za-z][A-Za-z_-]*)\s*:(.*)$")
_VALUE = re.compile(r"^([XC])([0-9]+)$")
_LOWER_VALUE = re.compile(r"^[xc][0-9]{1,5}$")
_AMOUNT = re.compile(r"^[+-]?[0-9]{1,2}$")


@dataclass
class ParsedCard:
    """What the text says, before compilation: header fields, sections in order, lines, and problems."""

    filename: str
    headers: dict[str, str] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)
    lines: list[CardLine] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True)
class _Token:
    text: str
    col: int
    quoted: bool = False


class _LineReader:
    """Error reporting bound to one source line."""

    def __init__(self, parsed: ParsedCard, lineno: int) -> None:
        self.parsed = parsed
        self.lineno = lineno
        self.failed = False

    def error(self, col: int, message: str) -> None:
        self.failed = True
        self.parsed.errors.append(Diagnostic(self.parsed.filename, self.lineno, col, message))


def _tokenize(raw: str, reader: _LineReader) -> list[_Token]:
    """Split on whitespace; a ``"..."`` note is one token; ``#`` outside a note starts a comment."""
    tokens: list[_Token] = []
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch.isspace():
            i += 1
        elif ch == "#":
            break
        elif ch == '"':
            end = raw.find('"', i + 1)
            if end < 0:
                reader.error(i + 1, "unterminated note: missing closing \"")
                tokens.append(_Token(raw[i + 1:], i + 1, quoted=True))
                break
            tokens.append(_Token(raw[i + 1:end], i + 1, quoted=True))
            i = end + 1
        else:
            start = i
            while i < n and not raw[i].isspace() and raw[i] not in '#"':
                i += 1
            tokens.append(_Token(raw[start:i], start + 1))
    return tokens


def _strip_comment(raw: str) -> str:
    """The line without a trailing comment (header lines have no notes, so a plain split is right)."""
    return raw.split("#", 1)[0]


def parse_text(text: str, filename: str = "<card>") -> ParsedCard:
    """Parse the whole card text; problems go to ``ParsedCard.errors`` instead of raising."""
    parsed = ParsedCard(filename)
    section: str | None = None
    numbers: dict[str, int] = {}
    seen_sections: set[str] = set()
    seen_lines: dict[tuple, int] = {}  # what a line means (groups, value, shifts) -> its line number
    total = 0
    # Lines end at "\n" (or "\r\n") only: str.splitlines would also break at form feeds, \x1c-\x1e, \x85 and
    # \u2028, and every later line number would be wrong.
    for lineno, raw in enumerate(text.removesuffix("\n").split("\n"), start=1):
        raw = raw.removesuffix("\r")
        reader = _LineReader(parsed, lineno)
        body = _strip_comment(raw)
        stripped = body.strip()
        if not stripped:
            continue
        col = len(body) - len(body.lstrip()) + 1
        if stripped.startswith("["):
            section = _section(stripped, col, reader, parsed, seen_sections)
            continue
        header = _HEADER.match(stripped)
        if header:
            _header(header, col, reader, parsed)
            continue
        if section is None:
            reader.error(col, "hand line before any [section] header")
            section = ""
        line = _hand_line(raw, reader, section, numbers.get(section, 0) + 1)
        numbers[section] = numbers.get(section, 0) + 1
        if line is None:
            continue
        meaning = (line.slots, line.value, line.concealed, line.shifted, line.shifts)
        if meaning in seen_lines:
            reader.error(col, f"this line repeats line {seen_lines[meaning]} (same groups, value and shift)")
            continue
        seen_lines[meaning] = lineno
        bound = variation_bound(line)
        if bound > MAX_LINE_VARIATIONS:
            reader.error(col, f"this line stands for up to {_count(bound)} concrete hands (alternatives x suits x "
                              f"shifts); the limit is {MAX_LINE_VARIATIONS:,}: split it into several lines")
            continue
        total += bound
        if total <= MAX_CARD_VARIATIONS:
            parsed.lines.append(line)
        elif total - bound <= MAX_CARD_VARIATIONS:  # said once, at the line that crosses it
            reader.error(col, f"from this line on the card would stand for more than {MAX_CARD_VARIATIONS:,} "
                              "concrete hands (the limit, docs/card.md); later lines are checked but not expanded")
    if "card" not in parsed.headers:
        parsed.errors.insert(0, Diagnostic(filename, 1, 1, "missing 'card: NAME' header"))
    return parsed


def _section(stripped: str, col: int, reader: _LineReader, parsed: ParsedCard, seen: set[str]) -> str:
    if not stripped.endswith("]"):
        reader.error(col + len(stripped), "section header needs a closing ]")
    name = stripped[1:].rstrip("]").strip()
    if not name:
        reader.error(col, "empty section name")
    elif name in seen:
        reader.error(col + 1, f"section [{name}] appears twice")
    else:
        parsed.sections.append(name)
        seen.add(name)
    return name


def _header(match: re.Match, col: int, reader: _LineReader, parsed: ParsedCard) -> None:
    key, value = match.group(1).lower(), match.group(2).strip()
    if key not in HEADER_KEYS:
        reader.error(col, f"unknown header {match.group(1)!r} (expected {', '.join(HEADER_KEYS)})")
    elif key in parsed.headers:
        reader.error(col, f"header {key!r} given twice")
    elif not value:
        reader.error(col + len(match.group(1)) + 1, f"header {key!r} has no value")
    else:
        parsed.headers[key] = value


def _hand_line(raw: str, reader: _LineReader, section: str, number: int) -> CardLine | None:
    """Parse ``groups X|C<value> [shift ...] ["note"]``; returns None when the line has errors."""
    tokens = _tokenize(raw, reader)
    slots: list[Slot] = []
    value: tuple[bool, int] | None = None
    shift_token: _Token | None = None
    shift_parts: list[_Token] = []
    note: str = ""
    stage = "groups"  # groups -> value seen -> shift -> note
    unreadable = False  # a group had errors: the tile count would only repeat them
    for tok in tokens:
        if tok.quoted:
            if stage == "note":
                reader.error(tok.col, "only one note per line")
            elif value is None:
                reader.error(tok.col, "the note must come after the X<value> or C<value>")
            else:
                note, stage = tok.text, "note"
            continue
        if stage == "note" and tok.text != "shift":
            reader.error(tok.col, f"unexpected {tok.text!r} after the note")
            continue
        if tok.text == "shift":
            if stage == "note":  # one error for the misplaced shift; its amounts are still checked
                reader.error(tok.col, "shift must come before the note")
            if value is None:
                reader.error(tok.col, "shift must come after the X<value> or C<value>")
                return None
            if shift_token is not None:
                reader.error(tok.col, "shift given twice")
            shift_token, stage = tok, "shift"
            continue
        if stage == "shift":
            shift_parts.append(tok)
            continue
        if _LOWER_VALUE.match(tok.text):
            amount = tok.text[1:]
            reader.error(tok.col, f"{tok.text!r}: the value is X{amount} or C{amount} (capital X for an exposed "
                                  "hand, C for a concealed one)")
            value, stage = value or (tok.text[0] == "c", int(amount)), "value"
            continue
        if tok.text[0] in "XC":
            value = _value(tok, reader, value)
            if slots or unreadable:
                stage = "value"
            else:  # written first: say so once and read the groups that follow as groups
                reader.error(tok.col, "the X<value> or C<value> comes after the tile groups")
            continue
        if stage == "value":
            reader.error(tok.col, f"unexpected {tok.text!r} after the value (groups come first)")
            continue
        slot = _slot(tok, reader)
        if slot is None:
            unreadable = True
        else:
            slots.append(slot)
    end_col = len(raw.rstrip()) + 1
    if value is None and not reader.failed:
        reader.error(end_col, "missing X<value> (exposed hand) or C<value> (concealed hand)")
    if not slots and not reader.failed:
        reader.error(tokens[0].col if tokens else 1, "hand line has no tile groups")
    _check_tags(slots, reader)
    if not unreadable:
        _check_count(slots, reader, tokens[0].col if tokens else 1)
    shifts = _shifts(shift_token, shift_parts, slots, reader)
    if reader.failed or value is None:
        return None
    text = " ".join(f'"{t.text}"' if t.quoted else t.text for t in tokens)
    concealed, amount = value
    return CardLine(section=section, number=number, text=text, value=amount, concealed=concealed,
                    slots=tuple(slots), shifts=shifts[1], shifted=shifts[0], note=note,
                    source_line=reader.lineno)


def variation_bound(line: CardLine) -> int:
    """At most how many concrete hands ``line`` expands to (compiled.expand), from its shape alone: choices of
    alternatives x assignments of its tags to suits x shifts. Exact products of small numbers, so a line that
    would expand to trillions is known as such in microseconds."""
    choices = math.prod(len(s.alternatives) for s in line.slots)
    tags = {g.tag for s in line.slots for g in s.alternatives if g.suited}
    suits = math.perm(3, min(len(tags), 3))
    return choices * suits * (9 if line.shifts is None else len(line.shifts))


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"about 10^{len(str(n)) - 1}"


def _value(tok: _Token, reader: _LineReader, previous: tuple[bool, int] | None) -> tuple[bool, int] | None:
    m = _VALUE.match(tok.text)
    if previous is not None:
        reader.error(tok.col, "a line has one value")
        return previous
    if not m:
        reader.error(tok.col, f"bad value {tok.text!r}: expected X<value> or C<value>, like X25 or C30")
        return None
    digits = m.group(2)
    amount = int(digits) if len(digits) <= len(str(MAX_VALUE)) else MAX_VALUE + 1
    if amount <= 0:
        reader.error(tok.col + 1, "a hand's value must be at least 1")
    elif amount > MAX_VALUE:
        reader.error(tok.col + 1, f"a hand's value is at most {MAX_VALUE:,} (the League's are 25 to 75)")
    return (m.group(1) == "C", amount)


def _slot(tok: _Token, reader: _LineReader) -> Slot | None:
    """A group token, possibly with ``|`` alternatives; each alternative is symbols then an optional tag."""
    alternatives: list[Group] = []
    col = tok.col
    ok = True
    for part in tok.text.split("|"):
        if not part:
            reader.error(col, "empty alternative (two | in a row, or | at an end)")
            ok = False
        else:
            group = _group(part, col, reader)
            if group is None:
                ok = False
            else:
                alternatives.append(group)
        col += len(part) + 1
    if not ok:
        return None
    sizes = {g.size for g in alternatives}
    if len(sizes) > 1:
        reader.error(tok.col, f"alternatives must have the same number of tiles, got sizes "
                              f"{', '.join(str(g.size) for g in alternatives)}")
        return None
    return Slot(tuple(alternatives))


def _group(part: str, col: int, reader: _LineReader) -> Group | None:
    symbols, tag = part, None
    if part[-1] in TAGS:
        symbols, tag = part[:-1], part[-1]
    for i, ch in enumerate(symbols):
        where = col + i
        if ch in SYMBOLS:
            continue
        if ch in TAGS:
            reader.error(where, f"suit tag {ch!r} must end the group")
        elif ch == "J":
            reader.error(where, "unknown symbol 'J': jokers are not written on the card, they may stand in any "
                                "group of 3 or more identical tiles")
        elif ch in "BCGRP":
            reader.error(where, f"unknown symbol {ch!r}: suits are written as tags a, b, c after a group "
                                "(different tags = different suits); D is the dragon of the group's suit")
        else:
            reader.error(where, f"unknown symbol {ch!r} (expected 1-9, 0, F, N, E, W, S, D, then a tag a/b/c)")
        return None
    if not symbols:
        reader.error(col, f"suit tag {tag!r} without tiles")
        return None
    group = Group(symbols, tag, col)
    if len(set(symbols)) == 1 and len(symbols) > MAX_GROUP:
        reader.error(col, f"group {symbols!r} has {len(symbols)} identical tiles: the largest group is a sextet "
                          f"({MAX_GROUP}); split it with a space")
        return None
    if tag is not None and not group.suited:
        reader.error(col + len(symbols), f"suit tag on {symbols!r}, which has no suit "
                                         "(zeros, winds and flowers are suitless)")
        return None
    return group


def _check_tags(slots: list[Slot], reader: _LineReader) -> None:
    """A line uses tags on all of its suited groups or on none of them (then it is a one-suit line)."""
    groups = [g for s in slots for g in s.alternatives]
    if not any(g.tag for g in groups):
        return
    for g in groups:
        if g.suited and g.tag is None:
            reader.error(g.col + g.size, f"group {g.symbols!r} needs a suit tag (a, b or c): other groups of "
                                         "this line have one")


def _check_count(slots: list[Slot], reader: _LineReader, col: int) -> None:
    if not slots:
        return
    total = sum(s.size for s in slots)
    if total != HAND_TILES:
        counts = " + ".join(f"{s} {s.size}" for s in slots)
        reader.error(col, f"{total} tiles ({counts}): a hand line has exactly {HAND_TILES}")


def _shifts(token: _Token | None, parts: list[_Token], slots: list[Slot],
            reader: _LineReader) -> tuple[bool, tuple[int, ...] | None]:
    """(shifted, amounts): amounts None means ``shift any``; (False, (0,)) means numbers as written."""
    if token is None:
        return False, (0,)
    numbers = [int(ch) for s in slots for g in s.alternatives for ch in g.symbols if ch in NUMBERS]
    if not parts:
        reader.error(token.col + len(token.text) + 1, "shift needs 'any' or a list of amounts like 0,2,4")
        return True, (0,)
    if not numbers and slots:
        reader.error(token.col, "shift on a line without numbers (zeros, winds, flowers and dragons never shift)")
        return True, (0,)
    if len(parts) == 1 and parts[0].text == "any":
        return True, None
    amounts: list[int] = []
    col = parts[0].col
    for tok in parts:
        col = tok.col
        for item in tok.text.split(","):
            if not item:
                col += 1
                continue
            if not _AMOUNT.match(item):
                reader.error(col, f"bad shift amount {item[:12]!r} (use 'any' or whole numbers from -8 to 8 like "
                                  "0,2,4)")
            else:
                amount = int(item)
                bad = [n for n in (min(numbers), max(numbers)) if not 1 <= n + amount <= 9] if numbers else []
                if bad:
                    reader.error(col, f"shift {amount} moves {bad[0]} to {bad[0] + amount}, outside 1-9")
                elif amount not in amounts:
                    amounts.append(amount)
            col += len(item) + 1
    return True, tuple(amounts) or (0,)
