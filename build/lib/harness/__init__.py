"""tiny-harness: the engine behind the Slack front end (`bot/`) and slash commands (`commands/`)."""

__version__ = "0.1.0"
