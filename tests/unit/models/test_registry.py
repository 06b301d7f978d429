"""ModelRegistry: routing by model name, offline when nothing is configured."""

from __future__ import annotations

import pytest

from harness.domain import Message
from harness.models import (
    AnthropicProvider,
    ModelError,
    ModelRegistry,
    ModelRequest,
    OfflineModel,
    OpenAICompatProvider,
)


def test_nothing_configured_runs_offline_names_and_refuses_the_rest():
    registry = ModelRegistry()
    for name in ("", "offline", "offline/fast"):
        assert isinstance(registry.resolve(name)[0], OfflineModel)
    assert registry.resolve("")[1] == "offline"
    for name, setting in (
        ("gpt-4.1", "HARNESS_OPENAI_API_KEY"),
        ("claude-sonnet-4-5", "HARNESS_ANTHROPIC_API_KEY"),
    ):
        with pytest.raises(ModelError, match=setting):  # never a silent offline run
            registry.resolve(name)


def test_check_names_the_setting_the_model_comes_from_and_what_to_set():
    registry = ModelRegistry()
    registry.check({"offline": "HARNESS_MODELS"})
    with pytest.raises(ModelError) as caught:
        registry.check({"offline": "HARNESS_MODELS", "gpt-4o": "HARNESS_MODELS"})
    assert str(caught.value).endswith(
        "HARNESS_MODELS names 'gpt-4o', which needs the openai provider: set "
        "HARNESS_OPENAI_API_KEY or HARNESS_OPENAI_BASE_URL, or remove it from HARNESS_MODELS"
    )
    assert caught.value.retryable is False


def test_routing_by_prefix(http):
    openai = OpenAICompatProvider(http, base_url="http://127.0.0.1:1/v1")
    anthropic = AnthropicProvider(http, api_key="k")
    registry = ModelRegistry(openai=openai, anthropic=anthropic, default_model="gpt-4.1")
    assert registry.resolve("claude-opus-4-1") == (anthropic, "claude-opus-4-1")
    assert registry.resolve("anthropic/my-proxy-model") == (anthropic, "my-proxy-model")
    assert registry.resolve("openai/claude-via-gateway") == (openai, "claude-via-gateway")
    assert registry.resolve("llama3.1:8b") == (openai, "llama3.1:8b")
    assert registry.resolve("") == (openai, "gpt-4.1")
    assert isinstance(registry.resolve("offline")[0], OfflineModel)


def test_an_unconfigured_vendor_is_an_error_naming_the_setting(http):
    registry = ModelRegistry(openai=OpenAICompatProvider(http, base_url="http://x/v1"))
    with pytest.raises(ModelError) as caught:
        registry.resolve("claude-sonnet-4-5")
    assert caught.value.kind == "config"
    assert "HARNESS_ANTHROPIC_API_KEY" in str(caught.value)


async def test_complete_sends_the_name_without_its_prefix(http, replay):
    registry = ModelRegistry(openai=OpenAICompatProvider(http, base_url=replay.openai_base_url))
    replay.queue("openai/text")
    request = ModelRequest(model="openai/qwen3", messages=(Message(role="user", content="hi"),))
    response = await registry.complete(request)
    assert response.text == "Paris is the capital of France."
    assert replay.requests[0].body["model"] == "qwen3"


async def test_from_settings_reads_keys_and_urls(http, replay):
    from harness.config import Settings

    assert ModelRegistry.from_settings(Settings(_env_file=None), http).offline_only
    settings = Settings(
        _env_file=None, openai_base_url=replay.openai_base_url, default_model="local-llm"
    )
    registry = ModelRegistry.from_settings(settings, http)
    replay.queue("openai/text")
    await registry.complete(ModelRequest(model="", messages=(Message(role="user", content="x"),)))
    assert replay.requests[0].body["model"] == "local-llm"
    assert "authorization" not in replay.requests[0].headers
    keyed = Settings(_env_file=None, anthropic_api_key="sk-ant-1", anthropic_base_url=replay.url)
    replay.queue("anthropic/text")
    await ModelRegistry.from_settings(keyed, http).complete(
        ModelRequest(model="claude-x", messages=(Message(role="user", content="x"),))
    )
    assert replay.requests[1].headers["x-api-key"] == "sk-ant-1"
