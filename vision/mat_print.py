"""Printing the set-up mat (``vision.mat``) as a PDF (fpdf2, vector: crisp markers and text at any printer's
resolution) and as PNG pages (OpenCV, for a screen or a photo lab). Both paint the same list of shapes, so the
two can never disagree about where a cell is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .calibration import ARUCO_DICT
from .mat import FRAME_MM, MARKER_MM, PAPERS, SHEETS, cells, label, label_box, marker_boxes

#: Cell labels are printed this tall (capital height about 0.72 of it): 18 pt, large print.
LABEL_PT = 18.0
TITLE_PT = 13.0
_TITLES = ("sheet 1 of 2: Bams, Craks, Dots", "sheet 2 of 2: winds, dragons, 8 Flowers, 8 Jokers")


@dataclass(frozen=True)
class Shape:
    """One thing printed on a sheet, in page mm: a marker (``text`` = its id), a cell outline, or text centred
    in ``box`` at ``pt`` points."""

    kind: str
    box: tuple[float, float, float, float]
    text: str = ""
    pt: float = 0.0


def shapes(sheet: int, paper: str) -> list[Shape]:
    """Everything on one sheet, placed on the paper in landscape (the mat frame centred on it)."""
    pw, ph = PAPERS[paper]
    ox, oy = (pw - FRAME_MM[0]) / 2, (ph - FRAME_MM[1]) / 2

    def at(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy

    out = [Shape("marker", at((x, y, x + MARKER_MM, y + MARKER_MM)), str(i)) for i, (x, y) in
           marker_boxes(sheet).items()]
    out.append(Shape("text", at((MARKER_MM + 4, 2, FRAME_MM[0] - MARKER_MM - 4, 10)),
                     f"mahj set-up mat, {_TITLES[sheet]}", TITLE_PT))
    out.append(Shape("text", at((MARKER_MM + 4, 10, FRAME_MM[0] - MARKER_MM - 4, 18)),
                     "print at 100 %; lay one tile face up in each box", TITLE_PT * 0.8))
    for c in cells(sheet):
        out.append(Shape("cell", at(c.zone)))
        out.append(Shape("text", at(label_box(c)), label(c.code), LABEL_PT))
    return out


def sheet_image(sheet: int, paper: str = "letter", dpi: int = 200) -> np.ndarray:
    """One sheet as a grayscale page image at ``dpi`` (landscape)."""
    px = dpi / 25.4
    pw, ph = PAPERS[paper]
    page = np.full((round(ph * px), round(pw * px)), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    for s in shapes(sheet, paper):
        x0, y0, x1, y1 = (round(v * px) for v in s.box)
        if s.kind == "marker":
            page[y0:y0 + (x1 - x0), x0:x1] = cv2.aruco.generateImageMarker(dictionary, int(s.text), x1 - x0)
        elif s.kind == "cell":
            cv2.rectangle(page, (x0, y0), (x1, y1), 90, max(1, round(0.4 * px)))
        else:
            cap = s.pt * 0.352778 * 0.72 * px          # capital height in px
            scale = cap / 22.0                          # Hershey simplex capitals are 22 units tall at scale 1
            thick = max(1, round(scale * 2.2))
            (tw, th), _ = cv2.getTextSize(s.text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
            scale *= min(1.0, (x1 - x0) / max(tw, 1))
            (tw, th), _ = cv2.getTextSize(s.text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
            cv2.putText(page, s.text, ((x0 + x1 - tw) // 2, (y0 + y1 + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, 0,
                        thick, cv2.LINE_AA)
    return page


def write_pdf(path: Path, paper: str = "letter") -> None:
    """Both sheets as a two-page PDF at true size (markers as vector squares, labels in Helvetica Bold)."""
    from fpdf import FPDF

    pdf = FPDF(orientation="landscape", unit="mm", format=paper.capitalize() if paper == "letter" else "A4")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    for sheet in range(len(SHEETS)):
        pdf.add_page()
        for s in shapes(sheet, paper):
            x0, y0, x1, y1 = s.box
            if s.kind == "marker":
                bits = cv2.aruco.generateImageMarker(dictionary, int(s.text), 6)   # 4x4 bits + black border
                unit = (x1 - x0) / 6
                pdf.set_fill_color(0)
                for r, c in zip(*np.nonzero(bits == 0), strict=True):
                    pdf.rect(x0 + c * unit, y0 + r * unit, unit * 1.02, unit * 1.02, style="F")
            elif s.kind == "cell":
                pdf.set_draw_color(90)
                pdf.set_line_width(0.4)
                pdf.rect(x0, y0, x1 - x0, y1 - y0)
            else:
                pdf.set_font("Helvetica", "B", s.pt)
                while pdf.get_string_width(s.text) > x1 - x0 and pdf.font_size_pt > 6:
                    pdf.set_font_size(pdf.font_size_pt - 0.5)
                pdf.set_xy(x0, y0)
                pdf.cell(x1 - x0, y1 - y0, s.text, align="C")
    pdf.output(str(path))
