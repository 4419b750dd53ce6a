"""Tournament rules that need no I/O: seating and rotation between rounds, who is East at a table, and the
points a reported game scores (MahjCon, rules text 003). The database, server and commands are in
``assistant.tournament``.
"""

from engine.tournament.scoring import GameResult, ResultError, game_points, penalty_points
from engine.tournament.seating import SeatingError, east_of_game, first_round, round_seating
from engine.tournament.standings import Standing, standings

__all__ = ["GameResult", "ResultError", "SeatingError", "Standing", "east_of_game", "first_round", "game_points",
           "penalty_points", "round_seating", "standings"]
