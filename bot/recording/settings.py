"""The settings a recording carries: those of :class:`~harness.config.Settings` that shape answers.

A replay of a recording made with ``HARNESS_MODELS=["haiku", "sonnet", "opus"]`` must run
with those models, or every ``/model`` and status differs for no reason (issue 28). So the
header holds, by variable name, the value of every setting that decides what a task does with
a request (:data:`CARRIED`), and names the settings that shape answers too but whose values
stay out of the file (:data:`NOT_CARRIED`: credentials, URLs that may hold them, paths of the
recording's machine). The rest (:data:`DEPLOYMENT`: where Temporal, the database and the ports
are, how a worker is tuned) says where the deployment runs, not what it answers: a replay's
stack chooses its own. A test holds every field of ``Settings`` to exactly one of the three,
so a new setting is classified before it ships. The values are the recording bot's own
(``HARNESS_*`` of its process: give the bot the worker's, as the Procfile does); how a replay
uses them is :mod:`bot.replay.settings`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from harness.config import Settings
from harness.redaction import Redactor

CARRIED: Final = frozenset(
    {
        "models",
        "default_model",
        "system_one_model",
        "agents",
        "plugins",
        "agent_token_budget",
        "agent_max_turns",
        "budget_tokens",
        "budget_tool_calls",
        "budget_cost",
        "model_prices",
        "compaction_keep_last",
        "history_event_limit",
        "history_bytes_limit",
        "history_update_limit",
        "subtask_wait_seconds",
        "watchers_may_talk",
        "progress",
        "progress_interval_seconds",
        "hook_max_depth",
        "openai_reasoning_effort",
        "model_timeout_seconds",
        "update_timeout_seconds",
        "temporal_rpc_seconds",
        "activity_start_to_close_seconds",
        "activity_heartbeat_seconds",
        "retry_max_attempts",
        "retry_initial_backoff_seconds",
        "retry_backoff_multiplier",
        "retry_max_backoff_seconds",
        "retry_max_worker_losses",
    }
)
"""Recorded with their values, and given to the replay's stack."""
NOT_CARRIED: Final = {
    "hooks_config": "the hooks file is what a replay tests: yours runs",
    "hooks_audit_only": "`--audit` decides it",
    "openai_api_key": "a credential",
    "anthropic_api_key": "a credential",
    "openai_base_url": "where models are served (a URL may hold a credential)",
    "anthropic_base_url": "where models are served (a URL may hold a credential)",
    "mcp_tool_servers": "tool servers' URLs and command lines may hold credentials",
    "skills_dir": "a directory of the recording's machine",
}
"""Shape answers, but only whether each was set is recorded; a replay uses yours, and says so."""
DEPLOYMENT: Final = frozenset(
    {
        "temporal_address",
        "temporal_namespace",
        "task_queue",
        "temporal_ui_url",
        "data_dir",
        "artefact_store",
        "database_url",
        "database_pool_size",
        "database_migrate",
        "payload_key",
        "payload_key_file",
        "loop_block_warn_seconds",
        "shutdown_grace_seconds",
        "health_host",
        "health_port",
        "sticky_queue_timeout_seconds",
        "workflow_task_timeout_seconds",
        "worker_max_concurrent_activities",
        "worker_max_concurrent_workflow_tasks",
        "worker_activity_pollers",
        "worker_workflow_pollers",
        "deployment_name",
        "build_id",
        "mcp_list_max_backoff_seconds",
        "slack_bot_token",
        "slack_api_url",
        "bot_local",
        "bot_host",
        "bot_port",
        "log_format",
        "metrics_address",
        "otel_exporter_otlp_headers",
        "otel_exporter_otlp_traces_headers",
    }
)
"""Where and how the deployment runs: neither recorded nor compared."""


def variable(field: str) -> str:
    """The environment variable of a setting: ``models`` -> ``HARNESS_MODELS``."""
    return f"HARNESS_{field.upper()}"


FIELDS: Final = {variable(name): name for name in (*CARRIED, *NOT_CARRIED)}
"""Variable -> field, of every setting a header names."""


def carried(settings: Settings, redactor: Redactor) -> dict[str, Any]:
    """The header's ``settings``: each carried setting's value (JSON), by variable, sorted.

    Args:
        settings: the recording bot's settings.
        redactor: masks any secret a value holds anyway (an agent's instructions quoting a key).
    """
    values = settings.model_dump(mode="json", include=set(CARRIED))
    return {variable(name): redactor.redact(values[name]) for name in sorted(values)}


def not_carried(settings: Settings) -> tuple[str, ...]:
    """The header's ``unrecorded``: the variables of :data:`NOT_CARRIED` that are set."""
    return tuple(sorted(variable(name) for name in NOT_CARRIED if is_set(settings, name)))


def is_set(settings: Settings, field: str) -> bool:
    """Whether ``field`` has a value other than its default."""
    default = Settings.model_fields[field].get_default(call_default_factory=True)
    return bool(getattr(settings, field) != default)


def as_environment(values: Mapping[str, Any]) -> dict[str, str]:
    """Variable -> value as the settings read it from the environment (JSON for lists, maps,
    booleans and numbers, a text as it is); ``None``, the default of each optional, is left out."""
    return {
        name: value if isinstance(value, str) else json.dumps(value)
        for name, value in values.items()
        if value is not None
    }
