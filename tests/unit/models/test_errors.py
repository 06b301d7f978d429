"""A model failure in human terms: what a person in the thread reads (issue 11)."""

from __future__ import annotations

import pytest

from harness.models.errors import ModelError


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (
            ModelError(provider="openai", kind="timeout", message="120s"),
            "the model provider (openai) did not answer in time",
        ),
        (
            ModelError(provider="anthropic", kind="transport", message="connect: refused"),
            "the model provider (anthropic) could not be reached",
        ),
        (
            ModelError(provider="openai", kind="malformed", message="no choices"),
            "the model provider (openai) sent an answer that could not be read",
        ),
        (
            ModelError(provider="openai", kind="status", status=401, message="Incorrect API key"),
            "the model provider (openai) refused the API key (HTTP 401); check the key it is "
            "configured with",
        ),
        (
            ModelError(provider="openai", kind="status", status=429, message="slow down"),
            "the model provider (openai) is limiting how often it may be called (HTTP 429)",
        ),
        (
            ModelError(provider="anthropic", kind="status", status=529, message="overloaded"),
            "the model provider (anthropic) is failing or overloaded (HTTP 529)",
        ),
        (
            ModelError(provider="openai", kind="status", status=400, message="bad effort"),
            "the model provider (openai) rejected the request (HTTP 400): bad effort",
        ),
        (
            ModelError(provider="openai", kind="config", message="model 'x' needs a key"),
            "model 'x' needs a key",
        ),
    ],
)
def test_every_kind_of_failure_reads_as_one_sentence(error: ModelError, sentence: str) -> None:
    assert error.user_message == sentence


def test_a_key_the_vendor_echoes_never_reaches_the_sentence() -> None:
    error = ModelError(
        provider="openai",
        kind="status",
        status=400,
        message="Incorrect API key provided: sk-abcdefghijklmnop",
    )
    assert "sk-abcdefghijklmnop" not in error.user_message
    assert "[redacted]" in error.user_message
