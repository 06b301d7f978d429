"""What a recording must not hold: secrets, capability URLs and, when asked, who said what.

Every text and every payload goes through :class:`Scrubber` before it is written:

- the bot's and the worker's own credentials (the signing secret, tokens, keys) and any
  token-shaped text, by the harness's :class:`~harness.redaction.Redactor`;
- fields that are secrets by name (Slack's legacy verification ``token``, ``secret``, …);
- each of those secrets and a webhook URL's path encoded once more (percent, JSON escapes,
  base64: :mod:`bot.recording.encodings`), as a person may paste them;
- ``response_url`` values: anyone holding one can post to the channel for half an hour, so
  a recording keeps only that there was one (replay gives each request a fresh one);
- a request body the bot could not read: only its length and hash (:meth:`Scrubber.request_body`);
- with pseudonyms on (``BOT_RECORD_PSEUDONYMISE=1``), Slack's user, channel and team ids and
  the fields that name people, channels and workspaces (``user_name``, ``channel_name``, …),
  each replaced by the same stand-in everywhere (HMAC-keyed, so the file cannot be mapped
  back without the key). What people wrote stays: read a recording before sharing it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Iterable
from typing import Any, Final, final
from urllib.parse import parse_qsl, urlencode

from bot.envelope import reads_as_json
from bot.recording.encodings import ENCODED_WEBHOOK_PATH, every_form
from harness.redaction import Redactor

RESPONSE_URL_PLACEHOLDER: Final = "https://hooks.slack.com/commands/REDACTED"
"""What a recorded ``response_url`` says; replay puts a fresh URL of its own in its place."""
UNREADABLE: Final = "{unreadable body: "
"""How a request body the bot could not read starts in a recording: it is not JSON, so the
bot refuses it again on replay, as it did when it was recorded."""
_SLACK_ID: Final = re.compile(r"\b(?=[UWBCGDTE][A-Z0-9]*[0-9])([UWBCGDTE])([A-Z0-9]{6,14})\b")
"""Slack's ids (``U024BE7LH``, ``C0123ABCD``, ``T…``): a kind letter, then upper-case letters
and digits with at least one digit (so ``CONTRIBUTING`` or ``UBOTLOCAL`` are left alone)."""
_URL_KEYS: Final = frozenset({"response_url"})
NAME_KEYS: Final = frozenset(
    {
        "user_name",
        "username",
        "name",
        "real_name",
        "display_name",
        "channel_name",
        "team_domain",
        "domain",
    }
)
"""Fields that name a person, a channel or a workspace: pseudonymised with the ids."""
_SECRET_KEYS: Final = ("token", "verification_token")


@final
class Scrubber:
    """Scrubs texts, payloads and request bodies for a recording.

    Args:
        secrets: every credential value the process holds (masked wherever it appears).
        pseudonym_key: ``None`` keeps ids; else the HMAC key of their pseudonyms.
    """

    def __init__(self, secrets: Iterable[str], pseudonym_key: bytes | None = None) -> None:
        self.redactor = Redactor(
            (ENCODED_WEBHOOK_PATH,), fields=_SECRET_KEYS, secrets=every_form(secrets)
        )
        self.key = pseudonym_key
        self._names: dict[str, str] = {}

    def add_secret(self, value: str) -> None:
        """Mask ``value`` too from now on, in each of its encoded forms."""
        for form in every_form([value]):
            self.redactor.add_secret(form)

    def pseudonym(self, slack_id: str) -> str:
        """The stand-in of one Slack id (the same every time); the id itself when off."""
        return slack_id[0] + "P" + self._digest(slack_id) if self.key is not None else slack_id

    def alias(self, name: str) -> str:
        """The stand-in of a person's, channel's or workspace's name; the name itself when off."""
        return "name-" + self._digest(f"name:{name}") if self.key is not None else name

    def _digest(self, value: str) -> str:
        """Nine letters and digits of the keyed HMAC of ``value``, the same every time."""
        if (found := self._names.get(value)) is None:
            assert self.key is not None
            digest = hmac.new(self.key, value.encode(), hashlib.sha256).digest()
            found = self._names[value] = base64.b32encode(digest).decode()[:9]
        return found

    def text(self, value: str) -> str:
        """One text: credentials masked, ids replaced when pseudonyms are on."""
        value = self.redactor.redact_text(value)
        if self.key is not None:
            value = _SLACK_ID.sub(lambda m: self.pseudonym(m.group(0)), value)
        return value

    def value(self, value: Any) -> Any:  # noqa: ANN401  # any JSON value
        """A JSON value with every string scrubbed, secret fields masked, response URLs gone."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                name = self.text(str(key))
                if key in _URL_KEYS and isinstance(item, str) and item:
                    out[name] = RESPONSE_URL_PLACEHOLDER
                elif self.redactor.is_secret_field(str(key)) and isinstance(item, str) and item:
                    out[name] = self.redactor.mask
                elif self.key is not None and key in NAME_KEYS and isinstance(item, str) and item:
                    out[name] = self.alias(item)
                else:
                    out[name] = self.value(item)
            return out
        return value

    def request_body(self, raw: bytes, content_type: str | None, *, readable: bool) -> str:
        """A request's body as the bot read it, scrubbed field by field in its own encoding.

        JSON or form as bolt reads it (:func:`bot.envelope.reads_as_json`), not as labelled:
        a JSON body sent as a form is written as the JSON that arrived, so that its replay is
        read as it was. A form's fields are scrubbed one by one (``payload``, Slack's JSON
        inside a form, as JSON), so a percent-encoded URL or token cannot slip past.

        A body the bot could not read (``readable`` false: the gate refused it as malformed)
        is written as :meth:`unreadable`, its length and hash only, never as text. Scrubbing
        one needs every encoding it may carry decoded first (a form labelled JSON, truncated
        JSON, a JSON string of JSON, base64, percent-encoding twice over), and what nothing
        parses cannot be proved clean: plain-text redaction let a percent-encoded payload key
        and JSON-escaped response URLs through (issue 28). Nor is its text of use to a replay:
        Slack never sends such a body, the bot answered it 400 unread, and the placeholder
        (not JSON either) is refused the same way, so the exchange still replays the same.

        Args:
            raw: the body's bytes as they arrived.
            content_type: its media type (:func:`bot.envelope.content_type_of`).
            readable: whether the bot read it.
        """
        if not readable:
            return self.unreadable(raw)
        try:
            text = raw.decode("utf-8")
            if reads_as_json(text, content_type):
                return json.dumps(self.value(json.loads(text)), ensure_ascii=False)
            fields = parse_qsl(text, keep_blank_values=True)
            return urlencode([(self.text(k), self._form_field(k, v)) for k, v in fields])
        except ValueError:  # the bot read it, so not met; were it, nothing of it is written
            return self.unreadable(raw)

    def unreadable(self, raw: bytes) -> str:
        """What a recording says of a body nobody could read: its length and hash.

        The hash tells whoever holds the original which request this was; with pseudonyms
        on it is keyed, so nobody can test a guess at the ids in it against the file.
        """
        if self.key is None:
            digest = "sha256 " + hashlib.sha256(raw).hexdigest()
        else:
            digest = "hmac-sha256 " + hmac.new(self.key, raw, hashlib.sha256).hexdigest()
        return f"{UNREADABLE}{len(raw)} bytes, {digest}}}"

    def answer_body(self, raw: str, content_type: str) -> str:
        """The bot's answer to a request: a JSON answer scrubbed as JSON, any other as text."""
        if "json" not in content_type:
            return self.text(raw)
        try:
            return json.dumps(self.value(json.loads(raw)), ensure_ascii=False)
        except ValueError:
            return self.unreadable(raw.encode())

    def _form_field(self, key: str, value: str) -> str:
        if key == "payload":
            return json.dumps(self.value(json.loads(value)), ensure_ascii=False)
        scrubbed: str = self.value({key: value})[self.text(key)]
        return scrubbed
