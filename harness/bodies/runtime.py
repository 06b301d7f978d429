"""BodyRuntime: the worker's models, tools, skills and Slack channel, built from Settings.

It opens what the bodies call (the HTTP client, MCP tool sessions) and hands them out
as one :class:`~harness.bodies.deps.BodyDeps`; it closes them when the manager closes
(the loop-defaults answer carries it, and ``HookManager.aclose`` closes every executor
with an ``aclose``). Settings are read here, never by a body.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Final, final

from harness.agent.state import LoopDefaults
from harness.bodies.deps import BodyDeps
from harness.bodies.persistence import LOOP_DEFAULTS_POINT, LoopDefaultsAnswer
from harness.channels import SlackChannel
from harness.channels.web_api import LOCAL_BOT_TOKEN
from harness.domain import DEFAULT_APPROVALS, ApprovalDefault, BudgetUsage
from harness.http import AiohttpClient
from harness.models import ModelRegistry
from harness.providers import Clock, SystemClock
from harness.skills import SkillLoader
from harness.tools import ToolRegistry, ToolUnavailable, builtin_tools

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.domain import RetryDefaults
    from harness.hooks import HookManager
    from harness.providers import RandomSource
    from harness.storage import TranscriptStore
    from harness.storage.artefacts import ArtefactStore
    from harness.tools.mcp import McpToolServer

log = logging.getLogger(__name__)

LIST_FIRST_DELAY: Final = 0.5
"""Seconds before the second attempt to list a tool server; each wait doubles."""


@final
class BodyRuntime:
    """What the default bodies need in one worker, opened from its settings.

    Args:
        settings: the worker's settings.
        store: the artefact store (the artefact tools write there).
        clock: the clock tool's clock.
        transcripts: the task transcripts (``persistence`` appends and range reads).
    """

    def __init__(
        self,
        settings: Settings,
        store: ArtefactStore,
        *,
        clock: Clock | None = None,
        transcripts: TranscriptStore | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.transcripts = transcripts
        self.http = AiohttpClient()
        self.models = ModelRegistry.from_settings(settings, self.http)
        # Every name a task may run on has its provider, or the worker does not start.
        self.models.check(
            {
                **dict.fromkeys(settings.models, "HARNESS_MODELS"),
                **(
                    {settings.default_model: "HARNESS_DEFAULT_MODEL"}
                    if settings.default_model
                    else {}
                ),
                **(
                    {settings.system_one_model: "HARNESS_SYSTEM_ONE_MODEL"}
                    if settings.system_one_model
                    else {}
                ),
            }
        )
        self.tools = ToolRegistry(builtin_tools(clock=clock or SystemClock(), store=store))
        self.skills = SkillLoader(settings.skills_dir)
        token = settings.slack_bot_token
        api_url = settings.slack_web_api_url
        self.channel = SlackChannel(
            http=self.http,
            api_url=api_url,
            token=token.get_secret_value() if token else LOCAL_BOT_TOKEN,
        )
        how = "SLACK_BOT_TOKEN" if token else "no SLACK_BOT_TOKEN: the local stand-in"
        log.info("agent replies go to %s (%s)", api_url, how)
        self.mcp_servers: list[McpToolServer] = []
        self.unlisted: dict[str, int] = {}
        """Configured tool servers not listed yet, each with its failed attempts."""

    def deps(
        self,
        *,
        random: RandomSource,
        retry: RetryDefaults,
        approvals: ApprovalDefault = DEFAULT_APPROVALS,
    ) -> BodyDeps:
        """The bodies' dependencies: these resources, and the settings' limits.

        ``approvals`` is the hooks file's ``[approvals] default``, which tasks read with
        their loop defaults (the approval policy itself has the whole table).
        """
        settings = self.settings
        return BodyDeps(
            store=self.store,
            transcripts=self.transcripts,
            random=random,
            models=self.models,
            tools=self.tools,
            skills=self.skills,
            channel=self.channel,
            retry=retry,
            agents=settings.agents,
            keep_last=settings.compaction_keep_last,
            watchers_may_talk=settings.watchers_may_talk,
            loop=LoopDefaults(
                system_one_model=settings.system_one_model,
                token_budget=settings.agent_token_budget,
                max_turns=settings.agent_max_turns,
                history_event_limit=settings.history_event_limit,
                history_bytes_limit=settings.history_bytes_limit,
                history_update_limit=settings.history_update_limit,
                subtask_wait_seconds=settings.subtask_wait_seconds,
                budget=BudgetUsage(
                    token_limit=settings.budget_tokens,
                    tool_call_limit=settings.budget_tool_calls,
                    cost_limit=settings.budget_cost,
                ),
                model_prices=settings.model_prices,
                progress=settings.progress != "off",
                approvals=approvals,
            ),
            resources=self,
            progress=settings.progress,
            progress_interval=settings.progress_interval_seconds,
        )

    @staticmethod
    def of(manager: HookManager) -> BodyRuntime | None:
        """The runtime whose bodies are registered on ``manager``, if any (the worker starts it)."""
        for reg in manager.registrations(LOOP_DEFAULTS_POINT):
            executor = reg.executor
            if isinstance(executor, LoopDefaultsAnswer) and isinstance(
                executor.resources, BodyRuntime
            ):
                return executor.resources
        return None

    async def start(
        self,
        *,
        stop: asyncio.Event | None = None,
        first_delay: float = LIST_FIRST_DELAY,
        max_delay: float | None = None,
    ) -> bool:
        """Connect the configured MCP tool servers and add their tools, retrying until all are.

        A server that cannot be listed is tried again, backing off from ``first_delay``
        to ``max_delay`` seconds, for as long as it takes: every worker of a task queue
        offers the same tools, so one must not take tasks with a server's tools
        missing. Meanwhile :meth:`waiting_for` names it (the worker's ``/readyz``).

        Args:
            stop: set by a stop signal: listing gives up.
            first_delay: seconds before a server's second attempt.
            max_delay: the longest wait between attempts; ``None``:
                ``HARNESS_MCP_LIST_MAX_BACKOFF_SECONDS``.

        Returns:
            Whether every server was listed (``False``: ``stop`` was set first).
        """
        from harness.tools.mcp import McpToolServer  # loads the MCP SDK only when configured

        stop = stop or asyncio.Event()
        longest = self.settings.mcp_list_max_backoff_seconds if max_delay is None else max_delay
        for name, target in self.settings.mcp_tool_servers.items():
            server = McpToolServer(name, target)
            self.mcp_servers.append(server)
            self.unlisted[name] = 0
        for server in self.mcp_servers:
            delay, attempt = min(first_delay, longest), 1
            while True:
                try:
                    tools = await server.tools()
                except ToolUnavailable as error:
                    self.unlisted[server.name] = attempt
                    log.warning(
                        "MCP tool server %s not listed (attempt %d), again in %.1f s: %s",
                        server.name,
                        attempt,
                        delay,
                        error,
                    )
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), delay)
                    if stop.is_set():
                        return False
                    delay, attempt = min(delay * 2, longest), attempt + 1
                    continue
                for tool in tools:
                    self.tools.add(tool)
                del self.unlisted[server.name]
                log.info("MCP tool server %s: %d tools", server.name, len(tools))
                break
        return True

    def waiting_for(self) -> str | None:
        """Why the worker cannot take tasks yet (a tool server not listed), or ``None``.

        The server's error stays in the log (redacted there): a URL or a command line may
        carry a credential, and ``/readyz`` answers anyone who can reach it.
        """
        for name, failed in self.unlisted.items():
            tried = f", {failed} attempts failed (the log says why)" if failed else ""
            return f"starting: MCP tool server {name} not listed yet{tried}"
        return None

    async def aclose(self) -> None:
        """Close the MCP sessions and the HTTP client."""
        for server in self.mcp_servers:
            try:
                await server.aclose()
            except Exception:
                log.exception("closing MCP tool server %s failed (suppressed)", server.name)
        await self.http.aclose()

    def __repr__(self) -> str:
        return f"<BodyRuntime {self.tools!r}>"
