"""An enrolled set's prototypes: L2-normalised embeddings of a player's own tiles, each with its code, and the
two files a set's folder keeps them in (``prototypes.npz`` and ``set.json``).

Its own module because both the classifier (which reads crops by them) and the tile model (which loads a set's
folder) need it; neither imports the other for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

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
        path = folder / PROTOTYPES_FILE
        try:
            z = np.load(path)
            meta = json.loads((folder / SET_FILE).read_text())
        except (OSError, ValueError, KeyError) as exc:
            raise TileModelError(f"{folder}: not a usable enrolled set ({exc})") from exc
        return cls(z["embeddings"], [str(c) for c in z["codes"]], float(meta.get("min_similarity", 0.5)),
                   meta.get("classifier"))

    def save(self, folder: Path, meta: dict) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / PROTOTYPES_FILE, embeddings=self.embeddings, codes=self.codes)
        meta = meta | {"min_similarity": self.min_similarity, "classifier": self.classifier}
        (folder / SET_FILE).write_text(json.dumps(meta, indent=2) + "\n")

    def match(self, emb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest prototype for each embedding: (codes, cosine similarities)."""
        sim = emb @ self.embeddings.T
        best = sim.argmax(axis=1)
        return self.codes[best], sim[np.arange(len(emb)), best]
