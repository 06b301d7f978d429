"""Settings of the worker and its client, from ``HARNESS_*`` environment variables and ``.env``.

The defaults run everything on one machine (a dev server on 127.0.0.1:7233, data
under ``.data``). Settings are read once, at process start, by the worker and the
bot; workflow code never reads them (it gets what it needs in its input).
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from harness.agent.profiles import AgentProfile
from harness.channels.web_api import plain_http_problem, web_api_url
from harness.domain import ModelPrice
from harness.secret_values import split_keys, temporal_secret_values
from harness.tracing import header_values

if TYPE_CHECKING:  # SQLAlchemy (and storage) load where a database is used, not per CLI
    from sqlalchemy.engine import URL


class Settings(BaseSettings):
    """Where Temporal is, where data lives, and how long activities may take and retry.

    Every field is ``HARNESS_<FIELD>`` in the environment, e.g.
    ``HARNESS_TEMPORAL_ADDRESS=temporal.internal:7233``.
    """

    model_config = SettingsConfigDict(
        env_prefix="HARNESS_",
        env_file=".env",
        extra="ignore",
        frozen=True,
        populate_by_name=True,
        use_attribute_docstrings=True,  # the docstrings are docs/settings.md (harness.settings_doc)
    )

    temporal_address: str = "127.0.0.1:7233"
    """``host:port`` of the Temporal frontend. When set, it wins over ``TEMPORAL_ADDRESS``
    and the profile's address (:mod:`harness.temporal.connection`); otherwise those decide,
    and this default is the last fallback. TLS and API key: ``TEMPORAL_*`` or a profile."""
    temporal_namespace: str = "default"
    """The Temporal namespace; when set it wins over ``TEMPORAL_NAMESPACE`` and the profile's."""
    task_queue: str = "tiny-harness"
    """The task queue the worker polls and tasks start on; every worker and bot of one deployment
    uses the same."""
    data_dir: Path = Path(".data")
    """Where local state lives: the dev server's ``temporal.db`` (``make run``), the artefact
    store, the bot's ledger and the payload key file, unless their own settings say otherwise."""
    artefact_store: Path | None = None
    """SQLite file of the worker's database (artefacts, audit) when ``database_url`` is unset;
    ``<data_dir>/artefacts.sqlite3`` when unset itself."""
    database_url: SecretStr | None = None
    """``postgresql://user:password@host:5432/db``: the database every worker (and bot replica)
    of a deployment shares for artefacts, transcripts, audit records and the bot's ledger.
    Unset, each process uses a SQLite file under its data dir (one host only)."""
    database_pool_size: int = Field(default=5, ge=1, le=100)
    """Connections each process keeps open to PostgreSQL (and as many more under load)."""
    database_migrate: bool = True
    """Bring the database's tables up to date at start (one process at a time). Off: run
    ``python -m harness.storage upgrade`` yourself; a process then refuses an older schema."""
    payload_key: SecretStr | None = None
    """Keys that encrypt what Temporal stores (issue 9): comma-separated base64 32-byte keys;
    the first encrypts, every one decrypts (rotation: prepend the new key)."""
    payload_key_file: Path | None = None
    """Read when ``payload_key`` is unset; ``<data_dir>/payload.key`` when unset itself
    (``make run`` creates it). Same format; one key a line works too."""

    activity_start_to_close_seconds: float = Field(default=120.0, gt=0)
    """The longest one activity attempt may run before Temporal times it out."""
    activity_heartbeat_seconds: float = Field(default=10.0, gt=0)
    """A worker that stops heartbeating for this long is presumed dead; the attempt fails."""
    loop_block_warn_seconds: float = Field(default=1.0, ge=0)
    """How long the worker's event loop may stay blocked (an ``async def`` executor calling
    ``time.sleep``, say: every heartbeat and activity of the worker waits meanwhile) before a
    WARNING names the hook executor and point holding it and, once it is free, for how long;
    ``0``: not watched."""

    retry_max_attempts: int = Field(default=5, ge=1)
    """Attempts per operation before the task fails; a cap on what ``activity.failed`` executors
    decide (each capped decision is an audit record of kind ``capped``)."""
    retry_initial_backoff_seconds: float = Field(default=1.0, ge=0)
    """The first retry's delay; each later one is multiplied by ``retry_backoff_multiplier``
    (±20% jitter)."""
    retry_backoff_multiplier: float = Field(default=2.0, ge=1)
    """How much each retry delay grows over the one before."""
    retry_max_backoff_seconds: float = Field(default=60.0, ge=0)
    """The longest retry delay, whatever executors decide (a cap, audited as ``capped``)."""
    retry_max_worker_losses: int = Field(default=10, ge=0)
    """How often one attempt may be started again because its worker died or stopped; such a
    re-run uses no attempt and is no ``activity.failed`` decision (issue 10)."""

    shutdown_grace_seconds: float = Field(default=10.0, ge=0)
    """How long in-flight activities may finish after a stop signal before being handed back."""
    health_host: str = "127.0.0.1"
    """Where the worker serves ``/healthz`` and ``/readyz`` (with ``health_port``); loopback
    by default, ``0.0.0.0`` for a probe from outside the host (the answers hold no secret)."""
    health_port: int | None = Field(default=None, ge=0, le=65535)
    """The worker's health port: ``/healthz`` is 200 while the process runs, ``/readyz`` 200
    once it polls its task queue (503 while connecting or stopping). Unset: no health server
    (several workers may share a host); ``0``: a free port, logged."""
    sticky_queue_timeout_seconds: float = Field(default=10.0, gt=0)
    """How long a workflow task waits for the worker that cached it before any worker takes it."""
    workflow_task_timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    """How long a killed worker's workflow task waits before another worker takes it."""
    worker_max_concurrent_activities: int | None = Field(default=None, ge=1)
    """Activities one worker runs at once (each hooked operation, model call and post is one);
    unset: the Temporal SDK's default (100)."""
    worker_max_concurrent_workflow_tasks: int | None = Field(default=None, ge=2)
    """Workflow tasks one worker processes at once; at least 2 (workflows are cached, which
    takes a sticky and a normal queue); unset: the SDK's default (100)."""
    worker_activity_pollers: int | None = Field(default=None, ge=1)
    """Concurrent polls for activity tasks (more helps a busy queue far from the server);
    unset: the SDK's default (5)."""
    worker_workflow_pollers: int | None = Field(default=None, ge=2)
    """Concurrent polls for workflow tasks, at least 2 (sticky and normal queue); unset: the
    SDK's default (5)."""
    deployment_name: str = Field(default="", max_length=100, pattern=r"^[A-Za-z0-9_-]*$")
    """The Temporal worker deployment this worker belongs to (worker versioning, issue 13);
    empty: versioning off, every worker of the task queue takes every task. Set, the worker
    polls as ``<name>.<build id>`` and takes new work once that version is made current
    (docs/deployment.md)."""
    build_id: str = Field(default="", max_length=100, pattern=r"^[A-Za-z0-9_.+-]*$")
    """This build's id within ``deployment_name`` (an image tag or commit); empty: the
    installed package's version."""
    temporal_rpc_seconds: float = Field(default=1.5, gt=0)
    """How long one request to Temporal may keep retrying a server that does not answer
    before the caller is told it is not reachable; below Slack's 3 s acknowledgement, so a
    user hears "not reachable, nothing was changed" in time (issue 10)."""
    update_timeout_seconds: float | None = Field(default=None, gt=0)
    """How long a request to a task (a command, a message, a click) waits for its answer;
    unset waits as long as Temporal does. Past it the caller gets ``TaskTimedOut``. A message
    no worker has routed by then (10 s when unset) is withdrawn and the sender is told that no
    worker answered (``TaskNoWorker``)."""
    temporal_ui_url: str = ""
    """The Temporal Web UI's address (``make run``: ``http://127.0.0.1:8233``); set, ``/task
    status`` links to the task's workflow there. Unset: no link."""

    models: list[str] = Field(default_factory=lambda: ["offline"], examples=[["offline", "gpt-4o"]])
    """Model names a task may use (``/model <x>`` accepts these); JSON in the environment:
    ``HARNESS_MODELS='["offline", "gpt-4o"]'``. ``offline`` is the deterministic local model."""

    plugins: list[str] = Field(default_factory=list, examples=[["commands:plugin"]])
    """Code plugins: ``module:function`` paths called with ``(manager, settings)``.

    For executors that need code to register, such as the slash commands
    (``HARNESS_PLUGINS='["commands:plugin"]'``, JSON in the environment); executors that an
    import path, a URL or a command describe belong in ``hooks_config``. The worker calls them
    after the built-in plugin and before ``hooks_config``; the bot's start-up check and ``python
    -m harness.hooks list`` load them the same way (:mod:`harness.plugins`). Keep
    ``commands:plugin`` in the list for the slash commands (the Procfile sets it)."""

    hooks_config: Path | None = None
    """Executor configuration file (TOML: executors, policy, retry, chain budget, tracing);
    loaded at worker start after the built-in plugin, all or nothing. See ``examples/hooks.toml``.
    The worker and the bot refuse to start on a bad file, naming every problem;
    ``python -m harness.hooks list --config FILE`` prints the chains the worker runs. SIGHUP
    makes a worker reload it, all or nothing, between operations (``docs/hooks/reload.md``)."""
    hooks_audit_only: bool = False
    """``1`` runs every executor of ``hooks_config`` that could change an operation (and its
    ``[policy]``) in audit mode: what it would veto or rewrite goes to the audit log, nothing is
    applied. A dry run of a new policy on live or replayed traffic (``bot.replay --audit``)."""

    # The agent loop (issue 5): model providers, tools, skills, named agents.
    default_model: str = ""
    """The model of a new task that names none; empty: the first of ``models``."""
    system_one_model: str = ""
    """The fast model that triages requests; the task's model when empty."""
    openai_api_key: SecretStr | None = None
    """Key of the OpenAI-compatible provider, which serves every model name that is neither
    ``offline`` nor Anthropic's (``openai/<m>``, ``gpt-4o``, ...) at ``openai_base_url``."""
    openai_base_url: str | None = None
    """An OpenAI-compatible server up to ``/v1`` (vLLM, Ollama); OpenAI's when only a key is set."""
    openai_reasoning_effort: bool = True
    """Send ``/effort`` as ``reasoning_effort`` (off for servers that reject it)."""
    anthropic_api_key: SecretStr | None = None
    """Key of the Anthropic provider, which serves ``claude…`` and ``anthropic/<m>`` names."""
    anthropic_base_url: str = "https://api.anthropic.com"
    """The Anthropic API's base URL (a proxy or a compatible server)."""
    model_timeout_seconds: float = Field(default=120.0, gt=0)
    """How long one model call may take before it fails (and is retried)."""
    mcp_tool_servers: dict[str, str | list[str]] = Field(
        default_factory=dict, examples=[{"files": ["python", "-m", "files_server"]}]
    )
    """Tool servers by name: an http(s) URL or a stdio command line as a JSON list."""
    mcp_list_max_backoff_seconds: float = Field(default=30.0, gt=0)
    """The longest wait between attempts to list a tool server at start; the worker is not
    ready, and polls nothing, until every configured server is listed."""
    skills_dir: Path = Path("skills")
    """Directory of skills (``<name>/SKILL.md``) that ``/task skill`` lists and loads."""
    agents: dict[str, AgentProfile] = Field(
        default_factory=dict,
        examples=[{"reviewer": {"instructions": "Review.", "tools": ["echo"]}}],
    )
    """Named agents, as JSON: ``{"reviewer": {"instructions": "...", "tools": ["echo"]}}``."""

    agent_token_budget: int = Field(default=8000, ge=0)
    """Tokens a task's transcript may hold before compaction (0: never compact)."""
    agent_max_turns: int = Field(default=8, ge=1)
    """Model turns (a model call and the tool calls it asks for) one request may take before
    the agent stops."""
    budget_tokens: int = Field(default=0, ge=0)
    """Tokens (model input and output, named agents and sub-tasks included) a new task may use
    before its owner is asked to raise the limit (0: no limit); ``/task budget`` changes it."""
    budget_tool_calls: int = Field(default=0, ge=0)
    """Tool calls a new task may make before its owner is asked to raise the limit (0: no limit)."""
    budget_cost: float = Field(default=0.0, ge=0)
    """USD a new task may spend, priced by ``HARNESS_MODEL_PRICES``, before its owner is asked
    to raise the limit (0: no limit)."""
    model_prices: dict[str, ModelPrice] = Field(
        default_factory=dict, examples=[{"gpt-4o": {"input": 2.5, "output": 10.0}}]
    )
    """Model prices in USD per million tokens, as JSON: ``{"gpt-4o": {"input": 2.5,
    "output": 10}}``; a model not listed costs nothing in a task's budget."""
    compaction_keep_last: int = Field(default=20, ge=1)
    """Messages compaction keeps verbatim at the end of the transcript."""
    history_event_limit: int = Field(default=10_000, ge=100)
    """A task continues as new (carrying its loop state) once its history holds this many events."""
    history_bytes_limit: int = Field(default=4_000_000, ge=10_000)
    """A task continues as new once its history is this large, in bytes (Temporal's own limit
    is 50 MB, and it suggests continuing at about 4 MB)."""
    history_update_limit: int = Field(default=1_000, ge=2)
    """A task continues as new once its run has taken this many updates (messages, commands,
    clicks): Temporal caps the updates of one workflow execution (2000 by default), and a
    channel task takes one per message."""
    subtask_wait_seconds: float = Field(default=600.0, ge=0)
    """How long a task past one of its history limits waits for its running sub-tasks before
    it continues as new anyway; those still running are then cancelled (each reports as
    cancelled) and named in the thread."""

    # Where ``channel.sent`` posts: the same Slack configuration as the bot's (issue 11).
    slack_bot_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "HARNESS_SLACK_BOT_TOKEN")
    )
    """The bot token (``xoxb-…``) the agent's replies are posted with: the bot's own
    ``SLACK_BOT_TOKEN`` (``HARNESS_SLACK_BOT_TOKEN`` also works). With it, replies go to
    Slack; without it, to the local bot's stand-in."""
    slack_api_url: str = ""
    """Slack Web API base URL, when neither Slack's own (``https://slack.com/api/``, with a
    token) nor the local stand-in (``BOT_LOCAL=1``, or no token) is right. A token is never
    sent over plain HTTP to a host that is not loopback: such a URL stops the process."""
    bot_local: bool = Field(default=False, validation_alias="BOT_LOCAL")
    """``BOT_LOCAL=1``, as the bot reads it: replies go to the local bot's stand-in."""
    bot_host: str = Field(default="127.0.0.1", validation_alias="BOT_HOST")
    """``BOT_HOST``, as the bot reads it: where the local stand-in is."""
    bot_port: int = Field(default=3000, validation_alias="BOT_PORT")
    """``BOT_PORT``, as the bot reads it: so a bot moved to another port is still found."""

    hook_max_depth: int = Field(default=16, ge=1)
    """How many operations may run inside one another (an executor running another
    operation) before the innermost is aborted, naming the chain (no ``RecursionError``)."""

    watchers_may_talk: bool = False
    """Whether a task's watchers may talk to its agent (mentions, thread replies); by default
    only its owner and collaborators do, and a sender with no role never does (the
    ``channel.received`` guard refuses them privately, naming who can invite them)."""

    progress: Literal["on", "stream", "off"] = "on"
    """Live progress (issue 14): each turn's message in the task's thread shows the plan, the
    step and the tool running now, updated in place (``chat.update``, with a Stop button);
    ``stream`` uses Slack's streaming (``chat.startStream``, no button while it streams) where
    the workspace offers it and falls back by itself; ``off``: no progress message at all."""
    progress_interval_seconds: float = Field(default=1.0, ge=0.05, le=60)
    """The least time between two updates of one progress message (Slack allows about one a
    second); the final state is sent at once."""

    # Observability (issue 11): log lines, the metrics endpoint, and the OTLP headers to mask.
    log_format: Literal["text", "json"] = "text"
    """``text`` (the default) or ``json``: one JSON object per log line (time, level, logger,
    message, and the task and correlation id of the operation being run), worker and bot."""
    metrics_address: str | None = None
    """``IP:port`` where the worker serves Prometheus metrics at ``/metrics`` (Temporal SDK
    series and the harness counters), e.g. ``127.0.0.1:9464``; unset: no endpoint."""
    otel_exporter_otlp_headers: SecretStr | None = Field(
        default=None, validation_alias="OTEL_EXPORTER_OTLP_HEADERS"
    )
    """``OTEL_EXPORTER_OTLP_HEADERS``, as the OpenTelemetry exporter reads it: headers of every
    export (``name=value,…``, often credentials); read here only so they are masked."""
    otel_exporter_otlp_traces_headers: SecretStr | None = Field(
        default=None, validation_alias="OTEL_EXPORTER_OTLP_TRACES_HEADERS"
    )
    """``OTEL_EXPORTER_OTLP_TRACES_HEADERS``: headers of span exports; masked like the above."""

    @field_validator("metrics_address")
    @classmethod
    def _ip_and_port(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        host, _, port = value.strip().rpartition(":")
        try:
            ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
        except ValueError:
            port = ""  # not an IP: refused below
        if not (port.isdigit() and 0 < int(port) < 65536):
            raise ValueError("must be IP:port, such as 127.0.0.1:9464 or 0.0.0.0:9464")
        return value.strip()

    @field_validator("database_url")
    @classmethod
    def _database_url_is_usable(cls, value: SecretStr | None) -> SecretStr | None:
        """A URL of a supported engine, refused by name (HARNESS_DATABASE_URL) otherwise."""
        if value is not None and value.get_secret_value().strip():  # unset: the SQLite file
            from harness.storage.engine import DatabaseError, database_url

            try:
                database_url(value.get_secret_value(), Path("unused.sqlite3"))
            except DatabaseError as error:
                raise ValueError(error.problem) from None
        return value

    @property
    def database(self) -> URL:
        """The database: ``database_url``, or else the SQLite file :attr:`artefact_store_path`."""
        from harness.storage.engine import database_url

        explicit = self.database_url.get_secret_value() if self.database_url else ""
        return database_url(explicit, self.artefact_store_path)

    @model_validator(mode="after")
    def _cost_limit_is_counted(self) -> Settings:
        """A default cost limit needs prices: with none, a task's cost stays $0.00 (issue 26)."""
        if self.budget_cost and not self.model_prices:
            raise ValueError(
                "HARNESS_BUDGET_COST needs HARNESS_MODEL_PRICES: with no model priced, a task's "
                "cost stays $0.00 and never reaches the limit; set prices or HARNESS_BUDGET_COST=0"
            )
        return self

    @model_validator(mode="after")
    def _token_only_over_tls(self) -> Settings:
        token = self.slack_bot_token.get_secret_value() if self.slack_bot_token else ""
        problem = plain_http_problem(self.slack_web_api_url, token, setting="HARNESS_SLACK_API_URL")
        if problem is not None:
            raise ValueError(problem)
        return self

    @property
    def slack_web_api_url(self) -> str:
        """Where the agent's replies are posted (:func:`harness.channels.web_api.web_api_url`)."""
        token = self.slack_bot_token.get_secret_value() if self.slack_bot_token else ""
        return web_api_url(
            explicit=self.slack_api_url,
            local=self.bot_local,
            token=token,
            host=self.bot_host,
            port=self.bot_port,
        )

    def secret_values(self) -> tuple[str, ...]:
        """Every secret value this process is configured with, for the redactor: masked wherever
        it appears, whatever its shape (issue 9), a token of no known family too."""
        found = [self.openai_api_key, self.anthropic_api_key, self.slack_bot_token]
        found.append(self.database_url)
        values = [s.get_secret_value() for s in found if s is not None and s.get_secret_value()]
        values += [p for p in (self.database.password,) if isinstance(p, str) and p]
        # The Temporal API key and inline client key data, from TEMPORAL_* or the profile file.
        return (
            *values,
            *self._payload_key_values(),
            *temporal_secret_values(os.environ),
            *self._otel_header_values(),
        )

    def _otel_header_values(self) -> list[str]:
        """Each OTLP header value (raw and URL-decoded): credentials of the trace collector."""
        found = (self.otel_exporter_otlp_headers, self.otel_exporter_otlp_traces_headers)
        texts = [s.get_secret_value() for s in found if s is not None]
        return [value for text in texts for value in header_values(text)]

    def _payload_key_values(self) -> list[str]:
        """Each payload key, from the variable or else the file (one by one: a key shows alone)."""
        text = self.payload_key.get_secret_value() if self.payload_key else ""
        if not text.strip():
            try:
                text = self.payload_key_path.read_text()
            except OSError:  # no file yet: nothing to mask (harness.temporal.keys says why)
                return []
        return split_keys(text)

    @property
    def task_model(self) -> str:
        """A new task's model: ``default_model``, else the first of ``models``, else offline."""
        return self.default_model or next(iter(self.models), "offline")

    @property
    def payload_key_path(self) -> Path:
        """The file payload keys are read from when ``HARNESS_PAYLOAD_KEY`` is unset."""
        return self.payload_key_file or self.data_dir / "payload.key"

    @property
    def artefact_store_path(self) -> Path:
        """The SQLite file of the artefact store."""
        return self.artefact_store or self.data_dir / "artefacts.sqlite3"
