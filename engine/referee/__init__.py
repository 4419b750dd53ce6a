"""The referee: follows a game from observed events and answers rulings (docs/referee.md).

    from engine.referee import Referee, events, Ruling, parse_profile
"""

from engine.referee import events
from engine.referee.profile import ProfileError, ScoringProfile, parse_profile
from engine.referee.referee import Referee
from engine.referee.rulings import Ruling

__all__ = ["Referee", "Ruling", "ScoringProfile", "ProfileError", "events", "parse_profile"]
