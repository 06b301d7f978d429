"""The local stand-in for Slack's Web API and response URLs: developer tooling.

The server (:mod:`bot.standin.server`) keeps what was posted and applies changes to it as
Slack does (:mod:`bot.standin.live`, and :mod:`bot.standin.responses` for response URLs), on
disk too (:mod:`bot.standin.store`). The running
bot imports it only where local mode (``BOT_LOCAL=1``) starts it
(:func:`bot.app.build_app`); ``python -m bot.say``, the testing kit, the replay and tests read
it back at the paths below.
"""

from bot.config import RESPONSE_PATH
from bot.standin.responses import ResponseView
from bot.standin.server import POSTS_PATH, RECORDING_PATH, SHOWN_SUFFIX, SlackStandIn, served
from bot.standin.store import PostStore

__all__ = [
    "POSTS_PATH",
    "RECORDING_PATH",
    "RESPONSE_PATH",
    "SHOWN_SUFFIX",
    "PostStore",
    "ResponseView",
    "SlackStandIn",
    "served",
]
