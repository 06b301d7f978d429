"""BodyDeps: everything the default bodies need, handed in as one typed value.

What a body reads or calls (the store, the model and tool registries, the channel,
the retry schedule) arrives here, never from settings or a global, so tests build
bodies from real parts and the worker builds them from its settings
(:class:`harness.bodies.runtime.BodyRuntime`). The table that registers the bodies
is :func:`harness.bodies.register_defaults`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, Protocol

from harness.agent.state import LoopDefaults
from harness.domain import RetryDefaults

if TYPE_CHECKING:
    from harness.agent.profiles import AgentProfile
    from harness.channels import SlackChannel
    from harness.models import ModelRegistry
    from harness.providers import RandomSource
    from harness.skills import SkillLoader
    from harness.storage import TranscriptStore
    from harness.storage.artefacts import ArtefactStore
    from harness.tools import ToolRegistry

DEFAULT_KEEP_LAST: Final = 20
"""Messages compaction keeps verbatim at the end of a transcript."""


class Resources(Protocol):
    """What holds connections for the bodies (HTTP pools, MCP sessions): closed with the manager."""

    async def aclose(self) -> None:
        """Release every connection."""


@dataclass(frozen=True, kw_only=True)
class BodyDeps:
    """The dependencies of every default body.

    Args:
        store: where ``persistence.read`` and ``persistence.write`` go.
        transcripts: where their append and range modes go (task transcripts).
        random: jitter for retry backoff (a provider, so tests can fix it).
        models: routes model names to providers.
        tools: the worker's tools.
        skills: reads skill folders.
        channel: posts to Slack (or its local stand-in).
        retry: the backoff schedule of ``activity.failed``.
        agents: the configured named agents.
        keep_last: messages compaction keeps verbatim.
        watchers_may_talk: whether a watcher's message reaches the task.
        loop: the loop limits a task reads once per run; the tool catalogue in it is
            filled from ``tools`` at each read (MCP tools join after start).
        resources: what the worker opened for these (closed when the manager closes).
        progress: ``HARNESS_PROGRESS``: live progress messages updated in place (``on``),
            streamed where Slack offers it (``stream``), or none (``off``).
        progress_interval: the least seconds between two updates of one progress message.
    """

    store: ArtefactStore
    random: RandomSource
    models: ModelRegistry
    tools: ToolRegistry
    skills: SkillLoader
    channel: SlackChannel
    retry: RetryDefaults = field(default_factory=RetryDefaults)
    agents: Mapping[str, AgentProfile] = field(default_factory=dict)
    keep_last: int = DEFAULT_KEEP_LAST
    watchers_may_talk: bool = False
    loop: LoopDefaults = field(default_factory=LoopDefaults)
    resources: Resources | None = None
    transcripts: TranscriptStore | None = None
    progress: Literal["on", "stream", "off"] = "on"
    progress_interval: float = 1.0
