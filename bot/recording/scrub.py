"""What a recording must not hold: secrets, capability URLs and, when asked, who said what.

Every text and every payload goes through :class:`Scrubber` before it is written:

- the bot's and the worker's own credentials (the signing secret, tokens, keys) and any
  token-shaped text, by the harness's :class:`~harness.redaction.Redactor`;
- fields that are secrets by name (Slack's legacy verification ``token``, ``secret``, …);
- ``response_url`` values: anyone holding one can post to the channel for half an hour, so
  a recording keeps only that there was one (replay gives each request a fresh one);
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

from harness.redaction import Redactor

RESPONSE_URL_PLACEHOLDER: Final = "https://hooks.slack.com/commands/REDACTED"
"""What a recorded ``response_url`` says; replay puts a fresh URL of its own in its place."""
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
        self.redactor = Redactor(fields=_SECRET_KEYS, secrets=secrets)
        self.key = pseudonym_key
        self._names: dict[str, str] = {}

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

    def body(self, raw: str, content_type: str) -> str:
        """A request or response body, scrubbed in its own encoding.

        A form body's fields are scrubbed one by one (and ``payload``, Slack's JSON inside a
        form, as JSON), so a percent-encoded URL or token cannot slip past the patterns.
        """
        if "json" in content_type:
            try:
                return json.dumps(self.value(json.loads(raw)), ensure_ascii=False)
            except ValueError:
                return self.text(raw)
        if "x-www-form-urlencoded" in content_type:
            fields = parse_qsl(raw, keep_blank_values=True)
            return urlencode([(self.text(k), self._form_field(k, v)) for k, v in fields])
        return self.text(raw)

    def _form_field(self, key: str, value: str) -> str:
        if key == "payload":
            try:
                return json.dumps(self.value(json.loads(value)), ensure_ascii=False)
            except ValueError:
                return self.text(value)
        scrubbed: str = self.value({key: value})[self.text(key)]
        return scrubbed
