"""Built-in scoring profiles (TOML package data): ``nmjl.toml`` (home play) and ``mahjcon.toml`` (tournament).

Copy one, edit the numbers, and pass the copy with ``--profile FILE``; ``engine.referee.profile`` parses it.
"""
