"""Camera, tile model runtime (onnxruntime) and table reading. Depends on ``engine`` for tile types only."""
