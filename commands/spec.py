"""CommandSpec: what one slash command is (name, arguments, body, help) and how it is filtered.

A spec is data: it does not register itself and knows nothing about Slack or
Temporal. :func:`for_command` turns a spec (or any executor) into a
``command.invoked.in`` executor that only ever sees its own command's contexts;
the role guard is in :mod:`commands.guard`, the registry in :mod:`commands`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Generic, TypeVar, final

from pydantic import BaseModel, ConfigDict, ValidationError

from harness import replies
from harness.domain import CommandResult, ModelPrice
from harness.hooks import Executor, HookAbort, HookContext
from harness.hooks.contexts import CommandInvokedContext
from harness.providers import Clock, SystemClock
from harness.replies.umbrella import command_name, invocation

A = TypeVar("A", bound=BaseModel)

DEFAULT_MODELS: Final[tuple[str, ...]] = ("offline",)
"""Models offered when the worker configures none: the deterministic offline model."""


class Args(BaseModel):
    """Base of every command's parsed arguments: frozen, unknown fields rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class UsageError(ValueError):
    """The argument text does not fit the command; the message carries the usage line.

    Not a failure of the command: the body turns it into a reply that teaches the
    right form, and the task is left as it was.
    """

    def __init__(self, *, command: str, problem: str, usage: str) -> None:
        self.command = command
        self.problem = problem
        self.usage = usage
        super().__init__(f"{problem}\nusage: {usage}")


def no_arguments(text: str, *, command: str, usage: str) -> None:
    """Check that a command which takes no arguments got none.

    Raises:
        UsageError: ``text`` is not blank.
    """
    if text.strip():
        raise UsageError(command=command, problem=replies.no_arguments(usage), usage=usage)


@dataclass(frozen=True, slots=True)
class CommandConfig:
    """What bodies need from the worker's configuration.

    Args:
        models: the model names ``/model <x>`` accepts (the configured providers').
        commands: the registry, so ``/help`` is generated from what is registered.
        temporal_ui_url: the Temporal Web UI (``HARNESS_TEMPORAL_UI_URL``); ``""``: no links.
        temporal_namespace: the namespace tasks run in, for those links.
        clock: what ``/task status`` measures elapsed times and timeouts with (bodies run
            in an activity, so they may read a clock; tests give a fixed one).
        model_prices: the models' prices (``HARNESS_MODEL_PRICES``): a cost limit on a
            model without one could never be reached, so ``/task budget`` refuses it.
        skills_dir: where the worker finds skills (``HARNESS_SKILLS_DIR``), which bare
            ``/task skill`` lists; ``None``: none to list.
    """

    models: tuple[str, ...] = DEFAULT_MODELS
    commands: tuple[CommandSpec[BaseModel], ...] = field(default=())
    temporal_ui_url: str = ""
    temporal_namespace: str = "default"
    clock: Clock = field(default_factory=SystemClock)
    model_prices: Mapping[str, ModelPrice] = field(default_factory=dict)
    skills_dir: Path | None = None


Body = Callable[[CommandInvokedContext, A, CommandConfig], Awaitable[CommandResult]]


@final
@dataclass(frozen=True, slots=True)
class CommandSpec(Generic[A]):
    """One slash command.

    Attributes:
        name: without the slash (``"model"``); the context's ``command``.
        summary: one line for ``/task help`` and the manifest's description.
        arguments: the argument synopsis, e.g. ``"[name]"`` (``""``: none).
        args: the pydantic model ``parse`` returns.
        parse: argument text -> ``args``; raises :class:`UsageError`.
        body: computes the reply and the effects; never applies them (workflows act).
        mutating: a watcher may not run it *with arguments* (``/model x``), only bare.
        bare_is_read_only: whether the bare form only shows something; ``False`` for
            ``/sub-task``, which has no read-only form, so a watcher is refused outright.
        owner_only: only the task's owner may run it with arguments (``/task invite``).
        top_level: Slack declares it as a slash command of its own (``/model``); otherwise
            it is typed under the umbrella (``/task status``, :mod:`harness.replies.umbrella`).
        escapes_mentions: it reads people from its arguments, so Slack must send
            mentions as ids (the manifest's ``should_escape``).
        open_to_all: a sender with no role in the task may run it too; only for a
            command that shows nothing of the task (``/task help``: help works anywhere).
    """

    name: str
    summary: str
    arguments: str
    args: type[A]
    parse: Callable[[str], A]
    body: Body[A]
    mutating: bool = False
    bare_is_read_only: bool = True
    owner_only: bool = False
    top_level: bool = False
    escapes_mentions: bool = False
    open_to_all: bool = False

    @property
    def invocation(self) -> str:
        """What a user types to run it bare: ``/model`` or ``/task status``."""
        return invocation(self.name, top_level=self.top_level)

    @property
    def usage(self) -> str:
        """The full synopsis, e.g. ``/model [name]`` or ``/task skill load|unload <name>``."""
        return f"{self.invocation} {self.arguments}".rstrip()

    def parse_args(self, text: str) -> A:
        """Parse ``text``, turning pydantic's validation errors into a :class:`UsageError`.

        Raises:
            UsageError: the text does not fit ``usage``.
        """
        try:
            return self.parse(text.strip())
        except ValidationError as error:
            problem = "; ".join(str(e["msg"]) for e in error.errors(include_url=False))
            raise UsageError(command=self.name, problem=problem, usage=self.usage) from None

    async def run(self, ctx: CommandInvokedContext, config: CommandConfig) -> CommandResult:
        """Parse and run the body; a usage error is a reply, any other error propagates."""
        try:
            args = self.parse_args(ctx.args)
        except UsageError as error:
            return CommandResult(reply=replies.usage(error.problem, error.usage))
        return await self.body(ctx, args, config)


Registry = Mapping[str, CommandSpec[BaseModel]]
"""Commands by name (without the slash): :data:`commands.COMMANDS`, or a subset in tests."""


@final
class CommandFilter:
    """An ``in`` executor that passes every context except its own command's to ``inner``.

    Other commands' contexts never reach ``inner`` (a remote body never receives
    another command's arguments, DESIGN.md "command.invoked"). ``inner`` raising is
    turned into the result ``<invocation> failed: <message>`` (``/model failed: …``) so
    the body's failure is the reply and no effect is applied.
    """

    __slots__ = ("inner", "name")

    def __init__(self, name: str, inner: Executor) -> None:
        self.name = command_name(name)
        self.inner = inner

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Run ``inner`` for this command's contexts only."""
        if not isinstance(ctx, CommandInvokedContext) or command_name(ctx.command) != self.name:
            return None
        try:
            return await self.inner(ctx)
        except HookAbort:
            raise  # a typed abort cancels the operation; the runner reports it
        except Exception as error:  # DESIGN: a body that raises becomes the reply
            typed = replies.spelled(self.name, ctx.invocation)
            return ctx.model_copy(update={"result": failed(typed, error)})

    def __repr__(self) -> str:
        return f"<CommandFilter /{self.name} {self.inner!r}>"


def for_command(name: str, executor: Executor) -> CommandFilter:
    """Wrap ``executor`` so it only runs for ``/<name>`` (see :class:`CommandFilter`)."""
    return CommandFilter(name, executor)


def failed(typed: str, error: BaseException | str) -> CommandResult:
    """The result of a command that failed: ``<typed> failed: <message>``, no effects.

    Args:
        typed: the command as typed (:func:`harness.replies.spelled`).
        error: what it raised, or the message itself.
    """
    # An error with no message of its own says nothing a person can act on: its class stays out.
    message = error if isinstance(error, str) else str(error) or replies.SOMETHING_WRONG
    return CommandResult(reply=replies.failed(typed, message))


def spec_executor(spec: CommandSpec[A], config: CommandConfig) -> Executor:
    """The body of ``spec`` as a plain ``in`` executor (unfiltered; wrap with :func:`for_command`).

    Args:
        spec: the command.
        config: handed to the body on every call.
    """

    async def body(ctx: HookContext, /) -> HookContext | None:
        assert isinstance(ctx, CommandInvokedContext)  # for_command guarantees it
        return ctx.model_copy(update={"result": await spec.run(ctx, config)})

    body.__qualname__ = f"commands.{spec.name}.body"
    return body
