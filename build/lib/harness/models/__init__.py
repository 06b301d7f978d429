"""Model providers: the bodies of ``llm.invoked`` and ``system_one.invoked`` call these.

:class:`ModelProvider` is the protocol; :class:`OfflineModel` is the deterministic,
credential-free default; :class:`OpenAICompatProvider` and :class:`AnthropicProvider`
speak the vendors' HTTP APIs over the harness's :class:`~harness.providers.HttpClient`;
:class:`ModelRegistry` picks one by model name.
"""

from __future__ import annotations

from harness.agent.tokens import estimate_tokens
from harness.models.anthropic import AnthropicProvider
from harness.models.base import ModelProvider, ModelRequest, Purpose
from harness.models.errors import MODEL_ERROR_KINDS, ModelError, ModelErrorKind
from harness.models.offline import OFFLINE_MODEL, OfflineModel
from harness.models.openai_compat import OpenAICompatProvider
from harness.models.registry import ModelRegistry

__all__ = [
    "MODEL_ERROR_KINDS",
    "OFFLINE_MODEL",
    "AnthropicProvider",
    "ModelError",
    "ModelErrorKind",
    "ModelProvider",
    "ModelRegistry",
    "ModelRequest",
    "OfflineModel",
    "OpenAICompatProvider",
    "Purpose",
    "estimate_tokens",
]
