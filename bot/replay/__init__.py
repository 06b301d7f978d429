"""``python -m bot.replay``: replay a recording of Slack traffic against this code (issue 16)."""
