"""Which provider serves a model name: the one place ``/model`` values are routed.

Rules, first match wins: ``offline`` (or ``offline/…``) → the offline model;
``anthropic/<m>`` or ``claude…`` → Anthropic; ``openai/<m>`` or anything else → the
OpenAI-compatible provider. A ``vendor/`` prefix is stripped before the name is sent.
A name whose provider is not configured is an error that says which setting is
missing, never a silent offline run (issue 11): a fresh checkout runs end to end
because its only model is ``offline``, and the worker checks every configured name at
start (:meth:`ModelRegistry.check`), so ``/model`` never offers one that cannot run.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final, final

from harness.domain import LlmResponse
from harness.models.anthropic import AnthropicProvider
from harness.models.base import ModelProvider, ModelRequest
from harness.models.errors import ModelError
from harness.models.offline import OFFLINE_MODEL, OfflineModel
from harness.models.openai_compat import DEFAULT_BASE_URL, OpenAICompatProvider
from harness.providers import HttpClient

if TYPE_CHECKING:
    from harness.config import Settings

log = logging.getLogger(__name__)

_MISSING: Final = {
    "anthropic": "HARNESS_ANTHROPIC_API_KEY",
    "openai": "HARNESS_OPENAI_API_KEY or HARNESS_OPENAI_BASE_URL",
}


@final
class ModelRegistry:
    """Routes model names to providers.

    Args:
        openai: the OpenAI-compatible provider, if configured.
        anthropic: the Anthropic provider, if configured.
        offline: the offline model (one is made when omitted).
        default_model: the name used when a request names none.
    """

    def __init__(
        self,
        *,
        openai: ModelProvider | None = None,
        anthropic: ModelProvider | None = None,
        offline: ModelProvider | None = None,
        default_model: str = OFFLINE_MODEL,
    ) -> None:
        self.offline = offline or OfflineModel()
        self._vendors: dict[str, ModelProvider | None] = {"openai": openai, "anthropic": anthropic}
        self.default_model = default_model or OFFLINE_MODEL
        if openai is None and anthropic is None:
            log.info("no model provider configured: only the offline model can run")

    @classmethod
    def from_settings(cls, settings: Settings, http: HttpClient) -> ModelRegistry:
        """The providers the settings configure (keys and URLs from ``HARNESS_*``).

        An OpenAI-compatible provider exists when a key or a base URL is set (local
        servers need no key); Anthropic when its key is set.
        """
        openai_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        openai = None
        if openai_key or settings.openai_base_url:
            openai = OpenAICompatProvider(
                http,
                api_key=openai_key,
                base_url=settings.openai_base_url or DEFAULT_BASE_URL,
                timeout=settings.model_timeout_seconds,
                send_reasoning_effort=settings.openai_reasoning_effort,
            )
        anthropic = None
        if settings.anthropic_api_key:
            anthropic = AnthropicProvider(
                http,
                api_key=settings.anthropic_api_key.get_secret_value(),
                base_url=settings.anthropic_base_url,
                timeout=settings.model_timeout_seconds,
            )
        return cls(openai=openai, anthropic=anthropic, default_model=settings.task_model)

    @property
    def offline_only(self) -> bool:
        """Whether no vendor provider is configured."""
        return all(p is None for p in self._vendors.values())

    def resolve(self, model: str) -> tuple[ModelProvider, str]:
        """The provider for ``model`` and the name to send it.

        Raises:
            ModelError: ``config`` when ``model`` routes to a provider not configured.
        """
        name = model or self.default_model
        vendor, _, rest = name.partition("/")
        if vendor == OFFLINE_MODEL:
            return self.offline, name
        if vendor in self._vendors and rest:
            target, sent = vendor, rest
        elif name.startswith("claude"):
            target, sent = "anthropic", name
        else:
            target, sent = "openai", name
        provider = self._vendors[target]
        if provider is None:
            raise ModelError(
                provider=target,
                kind="config",
                message=f"model {name!r} needs the {target} provider; set {_MISSING[target]}",
            )
        return provider, sent

    def check(self, names: dict[str, str]) -> None:
        """Fail unless every configured model name has its provider, naming what is missing.

        Args:
            names: model name -> the setting it comes from (``HARNESS_MODELS``, ...).

        Raises:
            ModelError: ``config``, naming the model, the setting it is in, and the
                provider setting to add.
        """
        for name, source in names.items():
            try:
                self.resolve(name)
            except ModelError as error:
                raise ModelError(
                    provider=error.provider,
                    kind="config",
                    message=f"{source} names {name!r}, which needs the {error.provider} "
                    f"provider: set {_MISSING[error.provider]}, or remove it from {source}",
                ) from None

    async def complete(self, request: ModelRequest) -> LlmResponse:
        """Resolve ``request.model`` and call its provider.

        Raises:
            ModelError: from :meth:`resolve` or the provider.
        """
        provider, sent = self.resolve(request.model)
        if sent != request.model:
            request = request.model_copy(update={"model": sent})
        return await provider.complete(request)
