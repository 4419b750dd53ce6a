"""Paper for the director: table cards (the scorer page's address and token as a QR code), score sheets and
standings as PDF, and the same figures as CSV.

PDFs are drawn with fpdf2 (already a dependency); the QR code is drawn as vector squares from qrcode's matrix,
so printing needs no image library. Names print in any script (assistant/tournament/fonts.py chooses the fonts
each document's text needs).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from assistant.qr import qr_matrix
from assistant.tournament import fonts
from engine.tournament.standings import Standing


class _Pdf:
    """An fpdf2 document whose fonts print ``texts`` (the players' and the tournament's names) in any script."""

    def __init__(self, texts: Iterable[str], landscape: bool = False) -> None:
        from fpdf import FPDF

        self.pdf = FPDF(orientation="landscape" if landscape else "portrait", unit="mm", format="A4")
        self.pdf.set_auto_page_break(True, margin=12)
        self.fonts = fonts.choose(texts)
        self.family = fonts.setup(self.pdf, self.fonts) or "Helvetica"

    def text(self, s: str) -> str:
        s = fonts.printable(s, self.fonts)
        return s if self.fonts.faces else s.encode("latin-1", "replace").decode("latin-1")

    def font(self, size: float) -> None:
        self.pdf.set_font(self.family, "", size)

    def line(self, s: str, size: float, h: float | None = None) -> None:
        self.font(size)
        self.pdf.cell(0, h or size * 0.5, self.text(s), new_x="LMARGIN", new_y="NEXT")

    def row(self, cells: Sequence[str], widths: Sequence[float], size: float = 10, h: float = 7) -> None:
        self.font(size)
        for text, w in zip(cells, widths, strict=True):
            self.pdf.cell(w, h, self.text(text), border=1)
        self.pdf.ln(h)

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.pdf.output(str(path))
        return path


def scorer_url(base: str, table: int, token: str) -> str:
    return f"{base.rstrip('/')}/table/{table}?token={quote(token)}"


def table_cards(path: Path, name: str, base_url: str, tokens: dict[int, str],
                seating: dict[int, dict[str, str]] | None = None) -> Path:
    """One A4 page per table: its number, the scorer page as a QR code, the address and token in print."""
    doc = _Pdf([name] + [n for seats in (seating or {}).values() for n in seats.values()])
    pdf = doc.pdf
    for table, token in sorted(tokens.items()):
        pdf.add_page()
        doc.line(name, 16, 10)
        doc.line(f"Table {table}", 48, 24)
        url = scorer_url(base_url, table, token)
        matrix = qr_matrix(url)
        side = 110.0
        cell = side / len(matrix)
        x0, y0 = (210 - side) / 2, pdf.get_y() + 8
        pdf.set_fill_color(0, 0, 0)
        for r, row in enumerate(matrix):
            for c, dark in enumerate(row):
                if dark:
                    pdf.rect(x0 + c * cell, y0 + r * cell, cell, cell, style="F")
        pdf.set_y(y0 + side + 10)
        doc.line("Scan to open this table's score page, or type:", 12, 7)
        doc.line(url, 10, 6)
        doc.line(f"Table token: {token}", 14, 8)
        if seating and seating.get(table):
            doc.line("Round 1: " + ", ".join(f"{x} {n}" for x, n in seating[table].items()), 11, 7)
        doc.line("Keep this card at the table: the token lets only this table report its games.", 9, 6)
    return doc.save(path)


def standings_rows(rows: Iterable[Standing]) -> list[list[object]]:
    return [[r.place, r.name, r.points, r.games, r.wins, r.penalties] for r in rows]


STANDINGS_HEADER = ["place", "name", "points", "games", "wins", "penalties"]
RESULTS_HEADER = ["round", "table", "game", "seat", "name", "points", "outcome", "winner", "value"]
#: A spreadsheet reads a cell starting with one of these as a formula (or, after a tab or CR, as one).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A text cell a spreadsheet would run as a formula (a player named ``=HYPERLINK(...)``) gets a leading
    single quote, which spreadsheets show as text (OWASP's advice for CSV injection). Numbers are written as
    numbers, so a negative score stays a number."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def write_rows(out: TextIO, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """CSV for spreadsheets: the header, then ``rows`` with every text cell made safe (csv_cell)."""
    w = csv.writer(out)
    w.writerow(header)
    w.writerows([csv_cell(c) for c in row] for row in rows)


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        write_rows(f, header, rows)
    return path


def standings_pdf(path: Path, name: str, round_text: str, rows: Sequence[Standing]) -> Path:
    doc = _Pdf([name, round_text] + [r.name for r in rows])
    doc.pdf.add_page()
    doc.line(f"{name}: standings", 18, 10)
    doc.line(round_text, 11, 8)
    widths = (18, 80, 25, 20, 18, 25)
    doc.row(["Place", "Name", "Points", "Games", "Wins", "Penalties"], widths)
    for r in standings_rows(rows):
        doc.row([str(c) for c in r], widths)
    return doc.save(path)


def score_sheets_pdf(path: Path, name: str, games_per_round: int,
                     sheets: Sequence[tuple[int, int, dict[str, str], dict[int, dict[str, int]]]]) -> Path:
    """One block per (round, table): the players by seat and each game's points, with totals."""
    doc = _Pdf([name] + [n for _, _, names, _ in sheets for n in names.values()], landscape=True)
    widths = [14, 70] + [22] * games_per_round + [24]
    for round_no, table, names, games in sheets:
        if doc.pdf.page_no() == 0 or doc.pdf.get_y() > 150:
            doc.pdf.add_page()
        doc.line(f"{name}: round {round_no}, table {table}", 13, 9)
        doc.row(["Seat", "Player"] + [f"Game {g}" for g in range(1, games_per_round + 1)] + ["Total"], widths)
        for letter, player in names.items():
            pts = [games.get(g, {}).get(letter) for g in range(1, games_per_round + 1)]
            doc.row([letter, player] + ["" if p is None else str(p) for p in pts]
                    + [str(sum(p for p in pts if p is not None))], widths)
        doc.pdf.ln(4)
    return doc.save(path)
