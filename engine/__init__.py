"""Rules of the game: tiles, the yearly card, the referee, settlements, Japanese scoring. Pure Python, no I/O."""
