"""Where the bot's ledger lives (its tables are tests/unit/storage/test_ledger.py's)."""

from __future__ import annotations

from bot.ledger import ledger_database
from harness.config import Settings


def test_the_bot_uses_the_deployments_database_or_else_its_own_file(tmp_path):
    own = tmp_path / "bot-ledger.sqlite3"
    unset = Settings(_env_file=None, data_dir=tmp_path)
    assert ledger_database(unset, own).database == str(own)  # not the worker's artefacts file
    shared = Settings(_env_file=None, database_url="postgresql://bot:pw@db:5432/harness")
    assert ledger_database(shared, own) == shared.database
    assert ledger_database(shared, own).drivername == "postgresql+asyncpg"
