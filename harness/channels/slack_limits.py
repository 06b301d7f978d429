"""Slack's limits on a message: one place for the numbers both sides of the Web API respect.

What Slack refuses (``msg_too_long``, ``invalid_blocks``), from its Web API and Block Kit
reference: the progress renderer (:mod:`harness.channels.progress`) and the transport
(:mod:`harness.channels.slack`) keep within them, and the bot's local stand-in refuses what
breaks them (:mod:`bot.standin.limits`), so tests see what a real workspace would refuse.
Data only.
"""

from __future__ import annotations

from typing import Final

MAX_TEXT: Final = 40_000
"""``text`` of a message (Slack: ``msg_too_long``)."""
MAX_BLOCKS: Final = 50
"""Blocks in one message (a modal or Home tab takes 100)."""
MAX_TEXT_OBJECT: Final = 3000
"""A section's ``text`` and any text object not limited further (context elements)."""
MAX_FIELD: Final = 2000
MAX_FIELDS: Final = 10
MAX_HEADER: Final = 150
MAX_CONTEXT_ELEMENTS: Final = 10
MAX_ACTIONS_ELEMENTS: Final = 25
MAX_BUTTON_TEXT: Final = 75
MAX_ID: Final = 255
"""``block_id`` and ``action_id``."""
MAX_VALUE: Final = 2000
"""A button's ``value``."""
MAX_URL: Final = 3000
MAX_MARKDOWN: Final = 12_000
"""The ``markdown`` blocks of one message, together."""
