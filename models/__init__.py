"""Shipped ONNX weights and their model cards. ``MODELS_DIR`` is where the runtime finds them."""

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
