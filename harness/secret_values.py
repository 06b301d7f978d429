"""Which configured values are secrets, beyond the settings' own ``SecretStr`` fields.

The redactor masks each wherever it shows (issue 9), so these split a multi-key text into
its keys and read the secrets Temporal's own environment configuration holds. Kept apart
from :mod:`harness.config` because :mod:`harness.temporal.keys` parses the same key texts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

# Base64 has neither commas nor whitespace, so either separates keys (a file may hold one a line).
_KEY_SEPARATORS: Final = re.compile(r"[,\s]+")


def split_keys(text: str) -> list[str]:
    """The key texts in ``text`` (``HARNESS_PAYLOAD_KEY`` or its file), in order.

    Parsing and checking them is :mod:`harness.temporal.keys`'s; the settings only need
    each one alone, so the redactor masks a key wherever it shows.
    """
    return [item for item in _KEY_SEPARATORS.split(text) if item]


def temporal_secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """The API key and inline client key data Temporal's environment configuration holds.

    From the ``TEMPORAL_*`` variables or the profile file, as :mod:`temporalio.envconfig`
    reads them, for the redactor. Never raises: a configuration too broken to load still
    has its variables masked (:func:`harness.temporal.connection.resolve` reports what is
    wrong, and is where the connection itself is decided).
    """
    # Imported here: the Temporal SDK costs ~0.1 s, and every CLI imports the settings.
    from temporalio.envconfig import ClientConfigProfile

    try:
        profile = ClientConfigProfile.load(override_env_vars=dict(env))
    except Exception:  # the bridge's ConfigError, an unreadable file: mask the variables
        return tuple(
            v for k in ("TEMPORAL_API_KEY", "TEMPORAL_TLS_CLIENT_KEY_DATA") if (v := env.get(k, ""))
        )
    key = profile.tls.client_private_key if profile.tls else None
    data = key.decode(errors="replace") if isinstance(key, bytes) else key
    found = (profile.api_key, data if isinstance(data, str) else None)
    return tuple(v for v in found if v)
