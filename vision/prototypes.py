"""An enrolled set's prototypes: L2-normalised embeddings of a player's own tiles, each with its code, and the
two files a set's folder keeps them in (``prototypes.npz`` and ``set.json``).

Its own module because both the classifier (which reads crops by them) and the tile model (which loads a set's
folder) need it; neither imports the other for it. A set's files are checked when loaded (a file cut short by a
crash or a full disk, or edited by hand, is named with how to learn the set again) and written whole or not at
all (each to a temporary file first, then renamed over the old one).
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np

from engine.tiles import TILES
from vision.onnx_session import TileModelError

SET_FILE = "set.json"
PROTOTYPES_FILE = "prototypes.npz"


class Prototypes:
    """An enrolled set: L2-normalised embeddings of the user's own tiles, each with its code."""

    def __init__(self, embeddings: np.ndarray, codes: list[str], min_similarity: float = 0.5,
                 classifier: str | None = None) -> None:
        self.embeddings = embeddings.astype(np.float32)
        self.codes = np.array(codes)
        self.min_similarity = min_similarity
        self.classifier = classifier        # classifier_id of the classifier that made the embeddings

    @classmethod
    def load(cls, folder: Path) -> Prototypes:
        """The set stored in ``folder``; TileModelError naming the file that is missing, cut short or wrong."""
        meta = read_meta(folder)
        path = folder / PROTOTYPES_FILE
        try:
            with np.load(path, allow_pickle=False) as z:
                embeddings, codes = z["embeddings"], [str(c) for c in z["codes"]]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise broken(path, f"cut short or not a set's prototypes ({exc})") from exc
        if embeddings.ndim != 2 or len(embeddings) != len(codes) or not len(codes):
            raise broken(path, f"{embeddings.shape} embeddings for {len(codes)} codes")
        if not np.isfinite(embeddings).all():
            raise broken(path, "embeddings that are not numbers")
        unknown = sorted(set(codes) - set(TILES))
        if unknown:
            raise broken(path, f"codes that are no tile: {', '.join(unknown[:5])}")
        try:
            min_similarity = float(meta.get("min_similarity", 0.5))
        except (TypeError, ValueError) as exc:
            raise broken(folder / SET_FILE, f"min_similarity {meta.get('min_similarity')!r} is not a number") from exc
        return cls(embeddings, codes, min_similarity, meta.get("classifier"))

    def save(self, folder: Path, meta: dict) -> None:
        """Write the prototypes and then ``set.json`` (what marks a folder as a set), each whole or not at all."""
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / PROTOTYPES_FILE, lambda f: np.savez(f, embeddings=self.embeddings, codes=self.codes))
        meta = meta | {"min_similarity": self.min_similarity, "classifier": self.classifier}
        write_atomic(folder / SET_FILE, lambda f: f.write((json.dumps(meta, indent=2) + "\n").encode()))

    def match(self, emb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest prototype for each embedding: (codes, cosine similarities)."""
        sim = emb @ self.embeddings.T
        best = sim.argmax(axis=1)
        return self.codes[best], sim[np.arange(len(emb)), best]

    def margins(self, emb: np.ndarray) -> np.ndarray:
        """For each embedding, how much nearer its nearest kind is than the nearest other kind (cosine similarity;
        1 where the set has one kind only): a small margin is a read the set is unsure of."""
        sim = emb @ self.embeddings.T
        best = sim.argmax(axis=1)
        other = np.where(self.codes[None, :] == self.codes[best][:, None], -np.inf, sim).max(axis=1)
        return np.where(np.isfinite(other), sim[np.arange(len(emb)), best] - other, 1.0)


def read_meta(folder: Path) -> dict:
    """A set's ``set.json``: a JSON object, or TileModelError naming it."""
    path = folder / SET_FILE
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise broken(path, exc.strerror or str(exc)) from exc
    except ValueError as exc:
        raise broken(path, f"cut short or not JSON ({exc})") from exc
    if not isinstance(meta, dict):
        raise broken(path, f"a JSON {type(meta).__name__}, not the set's description (an object)")
    return meta


def broken(path: Path, what: str) -> TileModelError:
    """The error for a set's file that cannot be used, with how to make the set again."""
    name = path.parent.name
    return TileModelError(f"{path}: {what}; the learned set {name!r} cannot be used: learn it again with `mahj "
                          f"setup tiles --set {name} --photo ...` (or --camera N), or read without it (--no-set)")


def write_atomic(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write a file through ``write`` into a temporary file beside it, then rename it over ``path``: a crash or a
    full disk leaves the old file whole, never half a new one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
