"""Reading the executor configuration: TOML in, a resolved :class:`HooksConfig` out, or errors.

Every problem is reported at once, each naming the line, the entry and the field
(tomllib gives no positions for values, so an entry's line is its ``[[executor]]``
header). Resolving means importing local targets, reading header env vars and
finding MCP commands; nothing is constructed or registered here (:mod:`.plan`).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import shutil
import ssl
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from harness.hooks.config.build import ResolvedEntry
from harness.hooks.config.plan import HooksConfig
from harness.hooks.config.schema import ExecutorEntry, HooksFile, RedactionSection
from harness.hooks.config.wrappers import FIELD_ALIASES
from harness.hooks.contexts import CONTEXT_TYPES
from harness.hooks.errors import HookConfigError
from harness.hooks.monitors.approvals import ApprovalRule, ApprovalsConfig
from harness.hooks.remote.signing import SignatureError, decode_secret
from harness.hooks.remote.tls import client_context

_ENV_REF: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PYTHON: Final = frozenset({"python", "python3"})


def resolve_program(first: str) -> str | None:
    """The program a command's first word runs: ``python``/``python3`` is this interpreter
    (the worker's venv, whatever ``PATH`` says), anything else is looked up on ``PATH``."""
    return sys.executable if first in _PYTHON else shutil.which(first, path=None)


def load_hooks_config(
    path: str | Path, *, environ: Mapping[str, str] | None = None, audit_only: bool = False
) -> HooksConfig:
    """Read, validate and resolve the file at ``path``.

    Args:
        path: a ``.toml`` file.
        environ: where header env vars are read; ``os.environ`` when omitted.
        audit_only: run every executor that could change an operation in audit mode
            (:meth:`HooksFile.audited`, ``HARNESS_HOOKS_AUDIT_ONLY``).

    Returns:
        The resolved configuration, ready for :meth:`HooksConfig.apply`.

    Raises:
        HookConfigError: the file is missing, is not TOML, or names anything that
            does not exist or is not allowed; all problems are listed.
    """
    path = Path(path)
    source = str(path)
    parsed, lines = _read(path)
    if audit_only:
        parsed = parsed.audited()
    problems: list[str] = []
    env = os.environ if environ is None else environ
    resolved = [
        _resolve(entry, index, lines, path.parent, env, problems)
        for index, entry in enumerate(parsed.executor)
    ]
    if problems:
        raise HookConfigError(source=source, problems=problems)
    return HooksConfig(
        source=source, file=parsed, entries=tuple(r for r in resolved if r), audit_only=audit_only
    )


def load_redaction(path: str | Path | None) -> RedactionSection:
    """The file's ``[redaction]`` table, for a process that masks but runs no executor;
    the empty table without a file (``RedactionSection().redactor()`` masks the built-in
    families and the secrets it is given, as a bare ``Redactor`` does).

    The Temporal client masks what it sends with it (issue 26), so an operator's pattern
    never reaches a workflow's history; the whole file is validated as
    :func:`load_hooks_config` does, but no executor is resolved (a bot need not import
    the worker's targets or hold its signing secrets).

    Raises:
        HookConfigError: the file is missing, is not TOML, or is not of the schema.
    """
    if path is None:
        return RedactionSection()
    parsed, _ = _read(Path(path))
    return parsed.redaction


def _read(path: Path) -> tuple[HooksFile, dict[tuple[str, int], int]]:
    """The file validated against the schema, and its entries' header lines."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise HookConfigError(source=source, problems=[f"cannot read: {error}"]) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise HookConfigError(source=source, problems=[f"not valid TOML: {error}"]) from None
    lines = _header_lines(text)
    try:
        return HooksFile.model_validate(raw), lines
    except ValidationError as error:
        raise HookConfigError(source=source, problems=_describe(error, raw, lines)) from None


def _header_lines(text: str) -> dict[tuple[str, int], int]:
    """Line number of the n-th header of each array table (``[[executor]]``, ``[[…rules]]``)."""
    found: dict[tuple[str, int], int] = {}
    counts: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"\s*\[\[\s*([\w.]+)\s*\]\]", line)
        if match:
            table = match.group(1).replace(" ", "")
            index = counts.get(table, 0)
            counts[table] = index + 1
            found[(table, index)] = number
    return found


def _describe(
    error: ValidationError, raw: dict[str, Any], lines: dict[tuple[str, int], int]
) -> list[str]:
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        loc = list(item["loc"])
        where = ""
        if len(loc) >= 2 and loc[0] == "executor" and isinstance(loc[1], int):
            index = loc[1]
            entries = raw.get("executor", [])
            name = entries[index].get("name", "") if index < len(entries) else ""
            line = lines.get(("executor", index))
            where = (f"line {line}: " if line else "") + (
                f"executor[{index}]" + (f" ({name!r})" if name else "")
            )
            loc = loc[2:]
        elif (
            len(loc) >= 3
            and loc[0] in ("policy", "approvals")
            and loc[1] == "rules"
            and isinstance(loc[2], int)
        ):
            table = f"{loc[0]}.rules"
            line = lines.get((table, loc[2]))
            where = (f"line {line}: " if line else "") + f"{table}[{loc[2]}]"
            loc = loc[3:]
        field = ".".join(str(part) for part in loc if not str(part).startswith("function-"))
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden" and item["loc"][0] == "approvals":
            model = ApprovalRule if where else ApprovalsConfig
            message = f"unknown key; it takes {', '.join(model.model_fields)}"
        subject = f"field {field!r}" if field else "entry"
        problems.append(f"{where + ': ' if where else ''}{subject}: {message}")
    return problems


def _resolve(
    entry: ExecutorEntry,
    index: int,
    lines: dict[tuple[str, int], int],
    base: Path,
    env: Mapping[str, str],
    problems: list[str],
) -> ResolvedEntry | None:
    line = lines.get(("executor", index))
    where = (
        (f"line {line}: " if line else "")
        + f"executor[{index}]"
        + (f" ({entry.name!r})" if entry.name else "")
    )
    count = len(problems)
    target: object = None
    is_factory = False
    if entry.target is not None:
        target, is_factory = _import(entry, where, problems)
    headers: dict[str, str] = {}
    for header, template in entry.headers.items():
        names = _ENV_REF.findall(template) or [template]
        missing = [n for n in names if n not in env]
        if missing:
            problems.append(
                f"{where}: field 'headers.{header}': environment variable "
                f"{', '.join(missing)} is not set"
            )
            continue
        value = template if _ENV_REF.search(template) else "${" + template + "}"
        headers[header] = _ENV_REF.sub(lambda m: env[m.group(1)], value)
    secrets = _signing_secrets(entry, where, env, problems)
    tls = _tls(entry, where, base, problems)
    command: tuple[str, ...] | None = None
    if entry.command is not None:
        first, *rest = entry.command
        program = resolve_program(first)
        if program is None and (base / first).exists():
            program = str(base / first)
        if program is None:
            problems.append(f"{where}: field 'command': {first!r} is not an executable on PATH")
        else:
            command = (program, *rest)
    for key in entry.match:
        for point in entry.points:
            problem = _check_path(key, point)
            if problem:
                problems.append(f"{where}: field 'match.{key}': {problem}")
                break
    if len(problems) > count:
        return None
    return ResolvedEntry(
        entry=entry,
        index=index,
        label=entry.label(index),
        target=target,
        is_factory=is_factory,
        headers=headers,
        command=command,
        cwd=base,
        signing_secrets=secrets,
        tls=tls,
    )


def _signing_secrets(
    entry: ExecutorEntry, where: str, env: Mapping[str, str], problems: list[str]
) -> tuple[str, ...]:
    secrets = []
    for name in entry.signing_secret:
        value = env.get(name)
        if not value:
            problems.append(
                f"{where}: field 'signing_secret': environment variable {name} is not set"
            )
            continue
        try:
            decode_secret(value)
        except SignatureError as error:  # its text never holds the value
            problems.append(f"{where}: field 'signing_secret': {name}: {error.detail}")
            continue
        secrets.append(value)
    return tuple(secrets)


def _tls(
    entry: ExecutorEntry, where: str, base: Path, problems: list[str]
) -> ssl.SSLContext | None:
    files: dict[str, Path] = {}
    for name in ("tls_client_cert", "tls_client_key", "tls_ca"):
        value = getattr(entry, name)
        if value is not None:
            files[name] = path = base / value
            if not path.is_file():
                problems.append(f"{where}: field {name!r}: no file {str(path)!r}")
    if not files or not all(path.is_file() for path in files.values()):
        return None
    try:
        return client_context(
            cert=files.get("tls_client_cert"),
            key=files.get("tls_client_key"),
            ca=files.get("tls_ca"),
        )
    except (OSError, ValueError) as error:
        fields = ", ".join(files)
        problems.append(f"{where}: fields {fields}: not a usable TLS set-up: {error}")
        return None


def _import(entry: ExecutorEntry, where: str, problems: list[str]) -> tuple[object, bool]:
    assert entry.target is not None  # only called for local entries
    module_name, _, attr = entry.target.partition(":")
    try:
        value: object = importlib.import_module(module_name)
        for part in attr.split("."):
            value = getattr(value, part)
    except ImportError as error:
        problems.append(f"{where}: field 'target': cannot import {module_name!r}: {error}")
        return None, False
    except AttributeError:
        problems.append(f"{where}: field 'target': {module_name!r} has no attribute {attr!r}")
        return None, False
    if _is_async_callable(value):
        if entry.options:
            problems.append(
                f"{where}: field 'options': {entry.target} is an executor, not a factory"
            )
        return value, False
    if callable(value):
        return value, True
    problems.append(f"{where}: field 'target': {entry.target} is not callable")
    return None, False


def _is_async_callable(obj: object) -> bool:
    if inspect.iscoroutinefunction(obj):
        return True
    if inspect.isclass(obj):
        return False
    call = getattr(obj, "__call__", None)  # noqa: B004  # objects with an async __call__ qualify
    return call is not None and inspect.iscoroutinefunction(call)


def _check_path(key: str, point: str) -> str:
    """Why ``key`` names no field of ``point``'s context, or ``""`` when it does."""
    cls: type[BaseModel] = CONTEXT_TYPES[point.rpartition(".")[0]]
    for part in FIELD_ALIASES.get(key, key).split("."):
        field = cls.model_fields.get(part)
        if field is None:
            return f"{cls.__name__} (at {point}) has no field {part!r}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            cls = annotation
        else:
            break
    return ""
