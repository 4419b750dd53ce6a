"""Alembic migrations of the tournament database (run by ``assistant.tournament.db.upgrade``)."""
