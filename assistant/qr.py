"""QR codes for links people open on a phone: the tournament's table cards and the private seat pages (issue 44).

Drawn from the ``qrcode`` package's module matrix only (no image library): as vector squares in a PDF
(assistant/tournament/sheets.py), as an SVG for a web page, and as half-block characters for a terminal, where
two rows of modules share one line so a code fits a console window.
"""

from __future__ import annotations

from html import escape

#: Light modules around the code, as the QR standard asks (scanners find the code by its quiet edge).
QUIET = 4


def qr_matrix(text: str) -> list[list[bool]]:
    """The code's modules (True = dark), without the quiet zone; error correction M (15 % may be lost)."""
    import qrcode

    qr = qrcode.QRCode(border=0, error_correction=qrcode.constants.ERROR_CORRECT_M)
    qr.add_data(text)
    qr.make(fit=True)
    return qr.get_matrix()


def qr_svg(text: str, label: str) -> str:
    """An SVG of the code, dark on white with its quiet zone, one path; ``label`` is its accessible name."""
    matrix = qr_matrix(text)
    side = len(matrix) + 2 * QUIET
    cells = "".join(f"M{c + QUIET} {r + QUIET}h1v1h-1z" for r, row in enumerate(matrix)
                    for c, dark in enumerate(row) if dark)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {side} {side}" role="img" '
            f'aria-label="{escape(label)}" shape-rendering="crispEdges"><rect width="{side}" height="{side}" '
            f'fill="#fff"/><path d="{cells}" fill="#000"/></svg>')


def qr_text(text: str) -> str:
    """The code for a terminal: light on dark is how most terminals are set, so dark modules are drawn as spaces
    and light ones as blocks ('\u2588', '\u2580', '\u2584'), two module rows per line, quiet zone included."""
    matrix = qr_matrix(text)
    n = len(matrix) + 2 * QUIET
    light = [[True] * n for _ in range(QUIET)] + [[True] * QUIET + [not d for d in row] + [True] * QUIET
                                                   for row in matrix] + [[True] * n for _ in range(QUIET)]
    if len(light) % 2:
        light.append([True] * n)
    chars = {(True, True): "\u2588", (True, False): "\u2580", (False, True): "\u2584", (False, False): " "}
    return "\n".join("".join(chars[top[c], bottom[c]] for c in range(n))
                     for top, bottom in zip(light[::2], light[1::2], strict=True))
