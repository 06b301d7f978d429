"""The root of every error the harness raises on purpose, and the whole tree under it.

Every exception class defined in ``harness``, ``bot`` and ``commands`` is drawn here
(``tests/test_error_tree.py`` walks the packages and fails on one left out, or drawn
under a class that is not its base). Each derives from :class:`HarnessError`, so a
caller catches the harness's failures in one clause, except the few named below it::

    HarnessError                       harness.errors
    ├── HookError                      harness.hooks.errors
    │   ├── HookAbort                  an executor cancelled the operation (maybe a refusal)
    │   ├── HookTransportError         a remote executor could not be reached or answered badly
    │   ├── HookValidationError        an executor returned a replacement that is not valid
    │   ├── HookTimeoutError           an executor or a chain ran past its time budget
    │   ├── HookConfigError            the executor configuration file is wrong
    │   └── UnknownHookPointError      a point name outside the catalogue
    ├── ConfigurationError             harness.errors: a setting is wrong; fix it, then restart
    │   ├── SettingsInvalid            harness.startup: a setting's value cannot be taken
    │   ├── TemporalConfigError        harness.temporal.errors: TEMPORAL_* or a profile is wrong
    │   ├── PayloadKeyError            harness.temporal.errors: no usable HARNESS_PAYLOAD_KEY
    │   ├── TracingConfigError         harness.tracing: an OTEL_* variable is wrong
    │   ├── MetricsConfigError         harness.temporal.worker.telemetry: metrics address unusable
    │   └── HealthServerError          harness.health: /healthz cannot listen where it was told
    ├── ServiceError                   harness.errors: a service outside failed or is out of reach
    │   ├── HttpClientError            harness.http.errors: an HTTP call got no complete answer
    │   ├── WireError                  harness.hooks.remote.wire: a reply broke the protocol
    │   │   ├── HookFunctionError      harness.hooks.remote.reply: a served function failed
    │   │   └── RemoteError            harness.hooks.remote.jsonrpc: the remote answered an error
    │   ├── ReplyError                 harness.hooks.remote.strict: a reply's fields do not conform
    │   ├── ModelError                 harness.models.errors: a model call gave nothing usable
    │   ├── ChannelError               harness.channels.slack: Slack did not accept a post
    │   ├── SlackRefused               bot.socket_mode: Slack refused SLACK_APP_TOKEN
    │   ├── TemporalUnreachable        harness.temporal.errors: the worker gave up waiting at start
    │   └── DatabaseError              harness.storage.engine: the database is misconfigured or down
    ├── TaskError                      harness.temporal.errors: a request to a task failed
    │   ├── TaskRejected               the task refused the request (finished, invalid)
    │   │   └── TaskRefused            a hook refused it on purpose (a sender with no role)
    │   ├── TaskNotFound               no task has that id
    │   ├── TaskBusy                   the task is at Temporal's limit of in-flight requests
    │   ├── TaskTimedOut               the task did not answer in time; the request may apply
    │   ├── TaskNoWorker               no worker took the request (none polls its task queue)
    │   └── TaskUnavailable            Temporal cannot be reached
    ├── ToolError                      harness.tools.errors: a tool cannot do the call as asked
    │   └── ToolUnavailable            the tool was not reached or did not answer (retryable)
    ├── SkillError                     harness.skills.loader: a skill is missing or invalid
    ├── SignatureError                 harness.hooks.remote.signing: a signature or secret is bad
    ├── RedactedError                  harness.hooks.remote.redacted: a foreign cause, redacted
    ├── RedactionError                 harness.redaction.errors: a value cannot be proved clean
    ├── PayloadCodecError              harness.temporal.errors: a stored payload does not decrypt
    ├── MessagesMissing                harness.temporal.errors: messages sent by reference are gone
    ├── RecordingError                 bot.recording.format: a recording cannot be read or written
    ├── StackStartError                bot.testing.parts: a test stack's process did not start
    └── BudgetSpent                    harness.agent.budget: a limit is used up, the owner said stop

The middle layers say what a caller can do: a :class:`ConfigurationError` is never
retried (nothing helps until an operator changes a setting; a process that meets one at
start exits with its sentence), a :class:`ServiceError` usually is (a server, a network
or a provider was down or answered badly, and may not be next time).

Deliberately outside it: errors that never leave the module pair that raises and
catches them, so they subclass what their neighbour catches, and the one failure
workflow code must raise as Temporal's own type::

    ValueError
    ├── FrontMatterError               harness.skills.frontmatter: caught by the loader (SkillError)
    ├── MalformedBody                  bot.envelope: caught by bot.gate and bot.socket_mode
    ├── KitUsageError                  harness.hook_server.conformance.runner: printed, exit 2
    └── UsageError                     commands.spec: caught by the command, becomes its usage reply
    ApplicationError                   temporalio.exceptions
    └── GaveUpError                    harness.temporal.workflow.failures: TaskGaveUp + its outcome

Foreign exceptions become these at one boundary per foreign party, and nowhere else:

- HTTP (httpx, aiohttp): the HTTP providers, :mod:`harness.http`, raise
  :class:`HttpClientError`; the model providers (``harness.models.transport``) and the
  Slack channel turn that into :class:`ModelError` and :class:`ChannelError`.
- Remote executors (HTTP, MCP, JSON, validation):
  :func:`harness.hooks.remote.wire.map_transport_errors`, to :class:`HookTransportError`.
- Temporal's client errors: ``harness.temporal.client.error_mapping.mapped`` (also used by
  ``harness.temporal.client.routing``), to the :class:`TaskError` family; ``temporalio.envconfig``
  in :mod:`harness.temporal.connection` (:class:`TemporalConfigError`); the SDK's failed
  connect in :func:`harness.temporal.worker.connect.connect` (:class:`TemporalUnreachable`).
- Temporal's activity failures, the other way: :mod:`harness.temporal.activity.wrapper` turns any
  error into an ``ApplicationError``, an abort through :mod:`harness.temporal.workflow.aborts`,
  which also rebuilds the :class:`HookAbort` on the workflow's side.
- SQLAlchemy, asyncpg, aiosqlite and alembic: :class:`harness.storage.engine.Database`'s
  transactions and :mod:`harness.storage.migrate`, to :class:`DatabaseError`.
- ``cryptography`` and key files: :mod:`harness.temporal.codec` and
  :mod:`harness.temporal.keys`; the MCP SDK's tool servers: :mod:`harness.tools.mcp`;
  ``slack_sdk`` in Socket Mode: :mod:`bot.socket_mode`; pydantic's validation:
  :mod:`harness.startup` (settings), :mod:`harness.hooks.config.loader` (the hooks
  file) and :mod:`harness.hooks.chain` (an executor's replacement).

Each error says whether another attempt may help (:attr:`HarnessError.retryable`),
because the activity boundary keeps only a type name and a message: the wrapper
turns a ``False`` into a non-retryable Temporal failure, so a misconfiguration fails
the task on its first attempt instead of after every retry.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base class for errors raised deliberately by the harness."""

    @property
    def retryable(self) -> bool:
        """Whether another attempt may succeed; yes unless the error knows better.

        Most failures the harness raises are about something outside it (a server,
        a network, a slow executor), so the default is to try again; errors about
        the request itself or the configuration override this with ``False``.
        """
        return True

    @property
    def user_message(self) -> str:
        """One sentence for the person in the thread, or "" to let the caller describe it.

        The activity boundary keeps only a type and a technical message; an error that
        knows how to say what went wrong in human terms (a model provider that does not
        answer) says it here, and the wrapper carries it to the workflow's reply.
        """
        return ""


def is_retryable(error: BaseException) -> bool:
    """Whether ``error`` is worth another attempt (``retryable`` when it has one; else yes).

    Args:
        error: any exception an operation raised.

    Returns:
        ``False`` only when the error says so.
    """
    return getattr(error, "retryable", True) is not False


class ConfigurationError(HarnessError):
    """A setting, a file or an environment variable is wrong; the message names it and the fix."""

    @property
    def retryable(self) -> bool:
        """No: the configuration has to change first."""
        return False


class ServiceError(HarnessError):
    """A service outside the harness failed or could not be reached.

    Temporal, the database, Slack, a model provider, an HTTP endpoint or a remote
    executor: most such failures pass, so another attempt may help (the default).
    """
