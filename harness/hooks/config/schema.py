"""The executor configuration file's shape, validated by pydantic (issue 6).

Only what one file can say, checked field by field: points and patterns expand
against the catalogue here, regexes compile, URLs and import paths are well formed.
Resolving what the file names (importing, reading env vars, spawning nothing yet)
is :mod:`.loader`'s job; building and registering executors is :mod:`.plan`'s.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Iterable
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.hooks.catalogue import DEFAULT_PRIORITY, POINTS
from harness.hooks.config.wrappers import FailurePolicy
from harness.hooks.modes import Mode
from harness.hooks.monitors.approvals import ApprovalsConfig
from harness.hooks.monitors.policy import PolicyRule
from harness.redaction import Redactor

Kind = Literal["local", "jsonrpc", "mcp"]

_ENV_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_REF: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_IMPORT_PATH: Final = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_SECRET_ENV: Final = re.compile(r"[A-Z_][A-Z0-9_]*")


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def expand_points(patterns: list[str]) -> tuple[str, ...]:
    """Every catalogue point matched by any pattern, in catalogue order.

    Raises:
        ValueError: a pattern matches no point (a typo must not silently configure nothing).
    """
    found: set[str] = set()
    for pattern in patterns:
        hits = set(fnmatch.filter(POINTS, pattern))
        if not hits:
            close = difflib.get_close_matches(pattern, POINTS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"{pattern!r} matches no hook point (expected '<operation>.<phase>', "
                f"e.g. {POINTS[0]!r}, 'llm.*.post', '*.pre'){hint}"
            )
        found |= hits
    return tuple(p for p in POINTS if p in found)


def check_url(url: str) -> str:
    """``url`` if it is an absolute http(s) URL with a host.

    Raises:
        ValueError: it is not.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    return url


class ExecutorEntry(_Section):
    """One ``[[executor]]`` table: what runs, where, in which order and how it may fail."""

    name: str = ""
    points: tuple[str, ...]
    kind: Kind
    target: str | None = None
    """``local``: ``module:attr``, an async executor or a factory returning one."""
    options: dict[str, Any] = Field(default_factory=dict)
    """``local`` factories: keyword arguments."""
    url: str | None = None
    command: tuple[str, ...] | None = None
    """``mcp`` over stdio; ``python`` means the worker's own interpreter."""
    headers: dict[str, str] = Field(default_factory=dict)
    """``jsonrpc``: header name -> env var name, or a template such as ``Bearer ${TOKEN}``."""
    idempotent: bool = True
    """``jsonrpc``: ``false`` says calling it twice repeats an effect; every call then carries
    the operation's key as an ``Idempotency-Key`` header, the same on every retry and every
    re-run after a lost worker, so the server can refuse to do it again (issue 10)."""
    pure: bool = Field(default=False, strict=True)  # "yes" must not declare it pure
    """Its decision depends only on the context: a retry of the same operation reuses the
    recorded decision instead of calling it again (issue 15, :mod:`harness.hooks.pure`)."""
    pure_ttl_seconds: float | None = Field(default=None, gt=0)
    """How long a pure executor's decision is reused (default an hour); only with ``pure``."""
    timeout: float | None = Field(default=None, gt=0)
    priority: int = DEFAULT_PRIORITY
    mode: Mode = "normal"
    on_failure: FailurePolicy = "fail"
    match: dict[str, re.Pattern[str]] = Field(default_factory=dict)
    """Context field (``tool``, ``command`` or a dotted path) -> regex it must fully match."""
    signing_secret: tuple[str, ...] = ()
    """``jsonrpc``: the environment variable(s) holding ``whsec_`` secrets; every request is
    signed (Standard Webhooks) with each, so the server can rotate (issue 15)."""
    tls_client_cert: str | None = None
    """``jsonrpc`` and ``mcp`` over ``https``: PEM client certificate for mTLS; this and the
    two below are paths, relative to the hooks file."""
    tls_client_key: str | None = None
    """Its PEM private key, when not in the certificate's file."""
    tls_ca: str | None = None
    """PEM CA bundle that signs the server's certificate, instead of the system's."""

    @field_validator("points", mode="before")
    @classmethod
    def _expand(cls, value: object) -> object:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            if not value:
                raise ValueError("lists no point")
            return expand_points(list(value))
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else check_url(value)

    @field_validator("signing_secret", mode="before")
    @classmethod
    def _secret_names(cls, value: object) -> object:
        names = [value] if isinstance(value, str) else value
        if isinstance(names, list | tuple):
            for name in names:
                if not isinstance(name, str):
                    continue  # pydantic reports the type
                if name.startswith("whsec_") or not _SECRET_ENV.fullmatch(name):
                    raise ValueError(
                        "must name environment variables (upper case, e.g. "
                        "'HOOKS_SIGNING_SECRET'); secrets are never written in the "
                        "configuration file"
                    )
            if not names:
                raise ValueError("names no environment variable")
        return names

    @field_validator("headers")
    @classmethod
    def _headers(cls, value: dict[str, str]) -> dict[str, str]:
        for header, source in value.items():
            if not _ENV_NAME.fullmatch(source) and not _ENV_REF.search(source):
                raise ValueError(
                    f"header {header!r} must name an environment variable (or use ${{VAR}}); "
                    "secrets are never written in the configuration file"
                )
        return value

    @model_validator(mode="after")
    def _fits_kind(self) -> ExecutorEntry:
        given = {f for f in ("target", "url", "command") if getattr(self, f) is not None}
        wanted = {"local": {"target"}, "jsonrpc": {"url"}, "mcp": {"url", "command"}}[self.kind]
        if extra := given - wanted:
            raise ValueError(f"{self.kind} executors take no {', '.join(sorted(extra))}")
        if self.kind == "mcp" and len(given) != 1:
            raise ValueError("an mcp executor needs exactly one of url or command")
        if self.kind != "mcp" and not given:
            raise ValueError(f"a {self.kind} executor needs {next(iter(wanted))}")
        if self.target is not None and not _IMPORT_PATH.fullmatch(self.target):
            raise ValueError(f"target {self.target!r} is not an import path 'module:attr'")
        if self.command is not None and not self.command:
            raise ValueError("command is empty")
        if self.options and self.kind != "local":
            raise ValueError("options apply to local executors only")
        if self.headers and self.kind != "jsonrpc":
            raise ValueError("headers apply to jsonrpc executors only")
        if not self.idempotent and self.kind != "jsonrpc":
            raise ValueError("idempotent = false applies to jsonrpc executors only")
        if self.pure_ttl_seconds is not None and not self.pure:
            raise ValueError("pure_ttl_seconds applies to pure executors only (pure = true)")
        if self.pure and not self.idempotent:
            raise ValueError(
                "a pure executor has no effects: pure = true and idempotent = false "
                "contradict each other"
            )
        if self.mode == "validator" and (bad := [p for p in self.points if p.endswith(".in")]):
            raise ValueError(f"a validator cannot run at an in point ({', '.join(bad)})")
        if self.mode == "observer" and (bad := [p for p in self.points if p.endswith(".in")]):
            raise ValueError(
                f"an observer cannot run at an in point ({', '.join(bad)}); "
                "observe the output at the post point"
            )
        return self

    @model_validator(mode="after")
    def _signing_and_tls(self) -> ExecutorEntry:
        if self.signing_secret and self.kind != "jsonrpc":
            raise ValueError("signing_secret applies to jsonrpc executors only")
        tls = [f for f in ("tls_client_cert", "tls_client_key", "tls_ca") if getattr(self, f)]
        if tls and not (self.url or "").startswith("https://"):
            raise ValueError(f"{', '.join(tls)} need an https:// url (jsonrpc, or mcp over HTTP)")
        if self.tls_client_key and not self.tls_client_cert:
            raise ValueError("tls_client_key needs tls_client_cert")
        return self

    def label(self, index: int) -> str:
        """How errors and listings name this entry."""
        return self.name or f"executor[{index}]"


class PolicySection(_Section):
    """``[policy]``: rule executor at ``tool.invoked.pre`` and ``command.invoked.pre``."""

    priority: int = 50
    mode: Mode = "normal"
    default: Literal["allow", "deny"] = "allow"
    rules: tuple[PolicyRule, ...] = ()


class RetrySection(_Section):
    """``[retry]``: the default ``activity.failed`` body's schedule and limits."""

    max_attempts: int | None = Field(default=None, ge=1)
    """A cap on attempts; the workflow's own limit (e.g. one for commands) still applies."""
    initial_seconds: float | None = Field(default=None, ge=0)
    multiplier: float | None = Field(default=None, ge=1)
    maximum_seconds: float | None = Field(default=None, ge=0)
    jitter: float | None = Field(default=None, ge=0, le=1)
    non_retryable: tuple[str, ...] = ()
    """Error type names (``ValueError``, ``HookTransportError``) never retried."""


class ChainSection(_Section):
    """``[chain]``: limits every chain of every point shares."""

    budget_seconds: float | None = Field(default=None, gt=0)


class ObservabilitySection(_Section):
    """``[observability]``: the OpenTelemetry executor and the JSON operation log."""

    tracing: bool = False
    logs: bool = False
    executor_stats: bool = False
    """Count and time every executor call; the worker flushes them to its database every 10 s
    for ``python -m harness.hooks stats`` (and, with a metrics endpoint, a latency histogram)."""


class ObserversSection(_Section):
    """``[observers]``: the queue executors with ``mode = "observer"`` run from (issue 15)."""

    queue_size: int = Field(default=1000, ge=0, le=1_000_000)
    """Observations waiting for a free slot; one more is dropped (and counted)."""
    concurrency: int = Field(default=4, ge=1, le=256)
    """Observations running at once."""
    shutdown_seconds: float = Field(default=5.0, ge=0, le=300)
    """How long the worker's shutdown waits for the queue to drain before cancelling it."""


class RedactionSection(_Section):
    """``[redaction]``: what the worker masks beside the built-in token families (issue 26).

    Applied to the redactor every context, output, audit record and remote cause goes
    through; read at start (a change needs a restart).
    """

    patterns: tuple[str, ...] = ()
    """Regular expressions whose matches are masked wherever they appear."""
    fields: tuple[str, ...] = ()
    """Field or key names whose values are masked whole (case and ``-``/``_`` ignored)."""

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            try:
                compiled = re.compile(pattern)
            except re.error as error:
                raise ValueError(f"{pattern!r} is not a regular expression: {error}") from None
            if compiled.fullmatch("") is not None:
                raise ValueError(f"{pattern!r} matches the empty text: it would mask nothing")
        try:
            Redactor(patterns=value, defaults=False)  # e.g. two patterns naming one group
        except re.error as error:
            raise ValueError(f"the patterns do not combine: {error}") from None
        return value

    @field_validator("fields")
    @classmethod
    def _named(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not name.strip() for name in value):
            raise ValueError("a field name is empty")
        return value

    def redactor(self, *, secrets: Iterable[str] = ()) -> Redactor:
        """The worker's redactor: the defaults, these patterns and fields, and ``secrets``."""
        return Redactor(patterns=self.patterns, fields=self.fields, secrets=secrets)


class HooksFile(_Section):
    """The whole file."""

    executor: tuple[ExecutorEntry, ...] = ()
    policy: PolicySection | None = None
    approvals: ApprovalsConfig | None = None
    """``[approvals]``: allow, deny or ask per tool call (:mod:`..monitors.approvals`)."""
    retry: RetrySection | None = None
    chain: ChainSection = ChainSection()
    observability: ObservabilitySection = ObservabilitySection()
    observers: ObserversSection | None = None
    redaction: RedactionSection = RedactionSection()

    def audited(self) -> HooksFile:
        """This file with every executor and the policy that could change an operation in
        audit mode: their vetoes and rewrites go to the audit log, none is applied (a dry run,
        ``HARNESS_HOOKS_AUDIT_ONLY``). Observers stay observers: they change nothing anyway."""

        def dry(mode: Mode) -> Mode:
            return "audit" if mode in ("normal", "validator") else mode

        policy = self.policy
        return self.model_copy(
            update={
                "executor": tuple(
                    e.model_copy(update={"mode": dry(e.mode)}) for e in self.executor
                ),
                "policy": policy.model_copy(update={"mode": dry(policy.mode)}) if policy else None,
            }
        )
