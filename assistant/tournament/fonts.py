"""Fonts that print the players' names in any script on the tournament's PDFs (fpdf2).

One text face (Noto Sans: Latin, Greek, Cyrillic) and, behind it, only the faces a document's own text needs, in
a fixed order: Hebrew, Arabic, CJK (Japanese, Chinese, Korean), symbols, and emoji in black and white (Symbola;
fpdf2 cannot draw colour emoji), then any other Noto Sans face of fonts-noto-core for a script not listed. A
face is added only when it has a character of the text, so a tournament of Latin names never loads the 20 MB CJK
collection. Right-to-left names (Hebrew, Arabic) are laid out by HarfBuzz (uharfbuzz, installed with the
tournament extra) so their letters run the right way.

A character that no font on this computer has is printed as "?" and named in a warning with the Debian package
that has it, never left blank.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

NOTO = Path("/usr/share/fonts/truetype/noto")
NOTO_CJK = Path("/usr/share/fonts/opentype/noto")
#: Characters that join or select glyphs and are drawn by none of their own.
JOINERS = frozenset("\u200d\ufe0e\ufe0f")


@dataclass(frozen=True)
class Face:
    """A font file (the first of ``paths`` that exists), the face in it (a collection holds several) and the
    Debian package that installs it."""

    paths: tuple[Path, ...]
    package: str
    index: int = 0

    @property
    def path(self) -> Path | None:
        return next((p for p in self.paths if p.exists()), None)


TEXT = Face((NOTO / "NotoSans-Regular.ttf",), "fonts-noto-core")
TEXT_FALLBACK = Face((Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),), "fonts-dejavu-core")
FALLBACKS = (
    Face((NOTO / "NotoSansHebrew-Regular.ttf",), "fonts-noto-core"),
    Face((NOTO / "NotoSansArabic-Regular.ttf",), "fonts-noto-core"),
    Face((NOTO_CJK / "NotoSansCJK-Regular.ttc",), "fonts-noto-cjk"),  # face 0: Japanese (with Chinese, Korean)
    Face((NOTO / "NotoSansSymbols2-Regular.ttf",), "fonts-noto-core"),
    Face((Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),
          Path("/usr/share/fonts/truetype/symbola/Symbola.ttf")), "fonts-symbola"),
)


@cache
def _cmap(path: Path, index: int) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(str(path), lazy=True, fontNumber=index)["cmap"].getBestCmap())


def _others() -> list[Face]:
    """Every other Noto Sans face of fonts-noto-core (one per script), tried last."""
    known = {f.paths[0] for f in (TEXT, *FALLBACKS)}
    return [Face((p,), "fonts-noto-core") for p in sorted(NOTO.glob("NotoSans*-Regular.ttf")) if p not in known]


def _needed(texts: Iterable[str]) -> set[str]:
    return {c for t in texts for c in t if not c.isspace() and c not in JOINERS}


@dataclass(frozen=True)
class FontChoice:
    """The faces a document's text needs (the text face first), the characters none of them has, and what to
    install for those."""

    faces: list[tuple[str, Path, int]]  # (fpdf2 family name, file, face index)
    missing: frozenset[str]
    warnings: list[str]


def choose(texts: Iterable[str]) -> FontChoice:
    """The faces that print ``texts``: the text face, and each fallback that has a character no earlier one has."""
    texts = list(texts)
    need = _needed(texts)
    faces: list[tuple[str, Path, int]] = []
    text_face = TEXT if TEXT.path else TEXT_FALLBACK if TEXT_FALLBACK.path else None

    def take(face: Face) -> None:
        path = face.path
        if path is None or (not need and face is not text_face):
            return
        has = {c for c in need if ord(c) in _cmap(path, face.index)}
        if has or face is text_face:
            faces.append((f"face{len(faces)}", path, face.index))
            need.difference_update(has)

    for face in ([text_face] if text_face else []) + list(FALLBACKS):
        take(face)
    for face in _others() if need else []:
        take(face)
    return FontChoice(faces, frozenset(need), _warnings(texts, need))


def package_for(char: str) -> str:
    """The Debian package whose fonts have ``char``, by what kind of character it is."""
    name = unicodedata.name(char, "")
    if name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC", "HALFWIDTH")):
        return "fonts-noto-cjk"
    if unicodedata.category(char) in ("So", "Sk"):
        return "fonts-symbola"
    return "fonts-noto-core"


def _warnings(texts: list[str], missing: set[str]) -> list[str]:
    out = []
    by_package: dict[str, list[str]] = {}
    for t in texts:
        for package in sorted({package_for(c) for c in t if c in missing}):
            by_package.setdefault(package, []).append(t)
    for package, names in sorted(by_package.items()):
        shown = ", ".join(repr(n) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        out.append(f"no font on this computer prints some characters of {shown} (printed as '?'): install "
                   f"{package} (Debian/Ubuntu: sudo apt install {package}) and make the PDF again")
    if not _shaping() and any(unicodedata.bidirectional(c) in ("R", "AL") for t in texts for c in t):
        out.append("right-to-left names (Hebrew, Arabic) print with their letters reversed: install uharfbuzz "
                   "(pip install 'mahj[tournament]')")
    return out


@cache
def _shaping() -> bool:
    try:
        import uharfbuzz  # noqa: F401
    except ImportError:
        return False
    return True


def setup(pdf, choice: FontChoice) -> str | None:  # noqa: ANN001 - an fpdf.FPDF
    """Add ``choice``'s faces to ``pdf``, the first as its text font and the rest as fallbacks; lay text out
    with HarfBuzz when it is installed. Returns the text font's family (None: Helvetica, no font found)."""
    if not choice.faces:
        return None
    for family, path, index in choice.faces:
        pdf.add_font(family, "", str(path), collection_font_number=index)
    if len(choice.faces) > 1:
        pdf.set_fallback_fonts([family for family, _, _ in choice.faces[1:]])
    if _shaping():
        pdf.set_text_shaping(True)
    return choice.faces[0][0]


def printable(text: str, choice: FontChoice) -> str:
    """``text`` with each character no font has as "?" (the warnings say what to install)."""
    return "".join("?" if c in choice.missing else c for c in text)
