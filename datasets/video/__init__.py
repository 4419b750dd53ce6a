"""Ground-truth table videos: scripted games played out physically and rendered frame by frame (docs/vision.md)."""
