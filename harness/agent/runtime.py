"""AgentRuntime: the worker's models, tools, skills, agents and Slack channel, built from Settings.

It registers the agent loop's default bodies (:func:`register_agent_builtin`), the
channel's (:func:`register_channel_builtin`) and one ``persistence.read`` executor
that answers :data:`LOOP_DEFAULTS_KEY` with the worker's :class:`LoopDefaults`, so
the task workflow learns its tools and budgets through a hooked operation. It owns
the HTTP client and MCP sessions and closes them when the manager closes
(``HookManager.aclose`` closes every executor with an ``aclose``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, final

from harness.agent.plugin import catalogue_of, register_agent_builtin
from harness.agent.state import LOOP_DEFAULTS_KEY, LoopDefaults
from harness.channels import SlackChannel, register_channel_builtin
from harness.channels.web_api import LOCAL_BOT_TOKEN
from harness.domain import Artefact
from harness.hooks import HookContext, HookManager
from harness.hooks.contexts import PersistenceReadContext
from harness.http import AiohttpClient
from harness.models import ModelRegistry
from harness.providers import Clock, SystemClock
from harness.skills import SkillLoader
from harness.tools import ToolRegistry, builtin_tools

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.store import ArtefactStore
    from harness.tools.mcp import McpToolServer

log = logging.getLogger(__name__)

LOOP_DEFAULTS_PRIORITY = 900
"""Before the store's body (1000): the key is the worker's, not the store's."""


@final
class AgentRuntime:
    """Everything the agent bodies need in one worker.

    Args:
        settings: the worker's settings.
        store: the artefact store (the artefact tools write there).
        clock: the clock tool's clock.
    """

    def __init__(
        self, settings: Settings, store: ArtefactStore, *, clock: Clock | None = None
    ) -> None:
        self.settings = settings
        self.http = AiohttpClient()
        self.models = ModelRegistry.from_settings(settings, self.http)
        # Every name a task may run on has its provider, or the worker does not start.
        self.models.check({
            **dict.fromkeys(settings.models, "HARNESS_MODELS"),
            settings.default_model: "HARNESS_DEFAULT_MODEL",
            **({settings.system_one_model: "HARNESS_SYSTEM_ONE_MODEL"}
               if settings.system_one_model else {}),
        })  # fmt: skip
        self.tools = ToolRegistry(builtin_tools(clock=clock or SystemClock(), store=store))
        self.skills = SkillLoader(settings.skills_dir)
        token = settings.slack_bot_token
        api_url = settings.slack_web_api_url
        self.channel = SlackChannel(
            http=self.http, api_url=api_url,
            token=token.get_secret_value() if token else LOCAL_BOT_TOKEN,
        )  # fmt: skip
        how = "SLACK_BOT_TOKEN" if token else "no SLACK_BOT_TOKEN: the local stand-in"
        log.info("agent replies go to %s (%s)", api_url, how)
        self.mcp_servers: list[McpToolServer] = []

    @staticmethod
    def of(manager: HookManager) -> AgentRuntime | None:
        """The runtime registered on ``manager``, if any (the worker starts and closes it)."""
        for reg in manager.registrations("persistence.read.in"):
            if isinstance(reg.executor, AgentRuntime):
                return reg.executor
        return None

    def register(self, manager: HookManager) -> None:
        """Register every default body the agent loop and the channel need, and this object."""
        register_agent_builtin(
            manager,
            models=self.models,
            tools=self.tools,
            skills=self.skills,
            agents=self.settings.agents,
            keep_last=self.settings.compaction_keep_last,
        )
        register_channel_builtin(
            manager, self.channel, watchers_may_talk=self.settings.watchers_may_talk
        )
        manager.register("persistence.read.in", self, priority=LOOP_DEFAULTS_PRIORITY)

    async def start(self) -> None:
        """Connect the configured MCP tool servers and add their tools.

        A server that cannot be listed is logged and skipped: the worker still serves
        every other tool (a tool server being down is not a reason to stop all tasks).
        """
        from harness.tools.mcp import McpToolServer  # loads the MCP SDK only when configured

        for name, target in self.settings.mcp_tool_servers.items():
            server = McpToolServer(name, target)
            self.mcp_servers.append(server)
            try:
                for tool in await server.tools():
                    self.tools.add(tool)
            except Exception as error:  # ToolUnavailable, or a name clash: say so, go on
                log.warning("MCP tool server %s not available: %s", name, error)

    def defaults(self) -> LoopDefaults:
        """The loop defaults of this worker (its tools as they are now)."""
        settings = self.settings
        return LoopDefaults(
            catalogue=catalogue_of(self.tools),
            system_one_model=settings.system_one_model,
            token_budget=settings.agent_token_budget,
            max_turns=settings.agent_max_turns,
            history_event_limit=settings.history_event_limit,
        )

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Answer a read of :data:`LOOP_DEFAULTS_KEY`; pass every other key through."""
        if not isinstance(ctx, PersistenceReadContext) or ctx.key != LOOP_DEFAULTS_KEY:
            return None
        content = self.defaults().model_dump_json()
        return ctx.model_copy(update={"result": Artefact(key=ctx.key, content=content)})

    async def aclose(self) -> None:
        """Close the MCP sessions and the HTTP client."""
        for server in self.mcp_servers:
            try:
                await server.aclose()
            except Exception:
                log.exception("closing MCP tool server %s failed (suppressed)", server.name)
        await self.http.aclose()

    def __repr__(self) -> str:
        return f"<AgentRuntime {self.tools!r}>"
