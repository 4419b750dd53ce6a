"""Tournament mode: many tables, one director (docs/tournament.md).

``db`` holds the schema and opens SQLite or PostgreSQL, ``store`` creates a tournament and seats its rounds,
``reports`` takes the tables' game reports (idempotent, disputes, corrections), ``web`` serves the pages and the
report API, ``client`` is the camera table's queue, ``sheets`` prints table cards and score sheets. Needs the
``tournament`` extra (SQLAlchemy, Alembic, psycopg).
"""
