"""Recording the bot's Slack traffic (``BOT_RECORD``) in the format ``bot.replay`` reads."""

from bot.recording.format import FORMAT, Recording, RecordingError, load
from bot.recording.recorder import Recorder, RecordingRespond, RecordingWebClient
from bot.recording.scrub import Scrubber

__all__ = [
    "FORMAT",
    "Recorder",
    "Recording",
    "RecordingError",
    "RecordingRespond",
    "RecordingWebClient",
    "Scrubber",
    "load",
]
