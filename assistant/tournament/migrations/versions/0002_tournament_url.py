"""The tournament's address (``new --url``): the server answers to its host name, and a reissued table card
(``token --table N``) prints the address the other cards carry.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("url", sa.String(500), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("url")
