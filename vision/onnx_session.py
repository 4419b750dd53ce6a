"""Opening the tile models' ONNX files with onnxruntime, on the CPU, the same way for each."""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort


class TileModelError(RuntimeError):
    """A model folder or file that cannot be used; the message names the path."""


def open_session(path: Path, threads: int) -> ort.InferenceSession:
    """An inference session over ``path`` with ``threads`` threads for one operator at a time."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # The sessions run one after the other, each with its own thread pool: left spinning after a run, one
    # pool's threads hold the cores the other needs (a 1280x720 frame with 60 tiles: 88 ms a frame spinning,
    # 60 ms not, bench/eval_tile_model.py's speed part).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises several unrelated types for a bad file
        raise TileModelError(f"cannot load tile model {path}: {exc}") from exc
