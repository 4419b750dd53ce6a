"""Alembic's entry point: runs the migrations on the connection ``db.upgrade`` hands over (never a URL of its
own, so the server and the commands migrate exactly the database they opened)."""

from alembic import context

from assistant.tournament.db import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
