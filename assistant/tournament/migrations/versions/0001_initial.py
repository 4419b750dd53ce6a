"""The first tournament schema: tournament, players, seats, tokens, reports, results, disputes, corrections.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("tables", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("games_per_round", sa.Integer, nullable=False),
        sa.Column("current_round", sa.Integer, nullable=False),
        sa.Column("profile_name", sa.String(200), nullable=False),
        sa.Column("profile_text", sa.Text, nullable=False),
        sa.Column("card_name", sa.String(500), nullable=False),
        sa.Column("card_text", sa.Text, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
    )
    op.create_table(
        "seats",
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("letter", sa.String(1), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("role", sa.String(10), nullable=False),
        sa.Column("table_no", sa.Integer, nullable=True),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("issued_at", TZ, nullable=False),
        sa.Column("revoked_at", TZ, nullable=True),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("game", sa.Integer, nullable=False),
        sa.Column("client_id", sa.String(100), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("received_at", TZ, nullable=False),
        sa.UniqueConstraint("round", "table_no", "game", "client_id", name="uq_report_key"),
    )
    op.create_table(
        "results",
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("game", sa.Integer, primary_key=True),
        sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), nullable=False),
        sa.Column("points", sa.Text, nullable=False),
    )
    op.create_table(
        "disputes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("game", sa.Integer, nullable=False),
        sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), nullable=False, unique=True),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("resolved_at", TZ, nullable=True),
        sa.Column("resolution", sa.String(20), nullable=True),
    )
    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("game", sa.Integer, nullable=False),
        sa.Column("old_report_id", sa.Integer, sa.ForeignKey("reports.id"), nullable=True),
        sa.Column("new_report_id", sa.Integer, sa.ForeignKey("reports.id"), nullable=False),
        sa.Column("who", sa.String(200), nullable=False),
        sa.Column("why", sa.Text, nullable=False),
        sa.Column("at", TZ, nullable=False),
    )


def downgrade() -> None:
    for name in ("corrections", "disputes", "results", "reports", "tokens", "seats", "players", "tournament"):
        op.drop_table(name)
