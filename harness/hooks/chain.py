"""The executor loop: one plain async pass over a point's registrations (pluggy's ``_multicall``).

Ordering is decided at registration (see :mod:`harness.hooks.manager`); this loop
only runs, checks replacements and stops the ``in`` phase once a result is set.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Final

from pydantic import ValidationError

from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort, HookTransportError, HookValidationError
from harness.hooks.executor import Registration

Scrub = Callable[[HookContext], HookContext]


async def run_chain(
    registrations: Sequence[Registration],
    ctx: HookContext,
    *,
    until_result: bool = False,
    scrub: Scrub | None = None,
) -> HookContext:
    """Run ``registrations`` in order, threading the context through them.

    Args:
        registrations: the point's executors, already sorted; never mutated here.
        ctx: the context the first executor receives.
        until_result: ``in`` semantics: stop as soon as the context carries a result
            (so a lower-priority body that sets one replaces the default body).
        scrub: applied to every replacement before the next executor sees it.

    Returns:
        The context returned by the last executor that replaced it, or ``ctx``.

    Raises:
        HookAbort: an executor cancelled the operation; ``point`` and ``executor`` are set.
        HookValidationError: an executor returned something other than a valid context
            of the point's type, or one with another identity (:data:`IDENTITY_FIELDS`).
    """
    cls = type(ctx)
    for reg in registrations:
        if until_result and ctx.result is not None:
            break
        try:
            out = await reg.executor(ctx)
        except HookAbort as abort:
            abort.point = abort.point or reg.point
            abort.executor = abort.executor or reg.name
            raise
        except HookTransportError as error:
            error.executor = error.executor or reg.name  # which service: the reply names it
            error.add_note(f"raised by hook executor {reg.name} at {reg.point}")
            raise
        except Exception as error:
            error.add_note(f"raised by hook executor {reg.name} at {reg.point}")
            raise
        if out is None or out is ctx:  # the same object is no replacement: nothing to check
            continue
        if type(out) is not cls:
            if inspect.iscoroutine(out):
                out.close()  # never awaited: close it, so Python does not warn about it later
                raise HookValidationError(
                    point=reg.point,
                    executor=reg.name,
                    detail="returned a coroutine without awaiting it (write `return await ...`)",
                )
            raise HookValidationError(
                point=reg.point,
                executor=reg.name,
                detail=f"expected {cls.__name__} or None, got {type(out).__name__}",
            )
        if _equal_fields(out, ctx):  # an equal copy (model_copy(), a remote's echo) is none either
            continue
        try:
            # model_copy(update=...) skips validation, so a replacement is re-validated here.
            replacement = cls.model_validate(out.__dict__)
        except ValidationError as error:
            raise HookValidationError(
                point=reg.point, executor=reg.name, detail=_summarise(error)
            ) from None
        changed = _changed_identity(ctx, replacement)
        if changed is not None:
            raise HookValidationError(
                point=reg.point,
                executor=reg.name,
                detail=f"{changed} is the operation's identity and may not be replaced",
            )
        ctx = replacement
        if scrub is not None:
            ctx = scrub(ctx)
    return ctx


IDENTITY_FIELDS: Final = ("task", "correlation_id", "attempt", "lost_workers", "idempotency_key")
"""Which operation of which task this is (DESIGN.md, "Identity is not an executor's to change").

Audit records, retries, idempotent writes and the commands' identity seal key on
these; an executor (local or remote) that could rewrite them could pass its work off
as another task's or another attempt's. The operation itself is the context's class,
checked above.
"""


def _equal_fields(out: HookContext, ctx: HookContext) -> bool:
    """Whether ``out`` holds what ``ctx`` holds, field for field (``==``), so ``ctx`` can go on.

    ``ctx`` is validated and redacted already, so handing it on instead of an equal copy
    skips both for the copy and changes nothing the next executor or the caller reads:
    not its identity, its type or its content. Contexts have no extras and no private
    attributes, so the fields are all there is to compare.
    """
    try:
        return out.__dict__ == ctx.__dict__
    except Exception:  # an odd __eq__ (an array) in an unvalidated copy: validate it instead
        return False


def _changed_identity(before: HookContext, after: HookContext) -> str | None:
    """The first identity field ``after`` changed, or ``None``."""
    for name in IDENTITY_FIELDS:
        old, new = getattr(before, name), getattr(after, name)
        if old is not new and old != new:
            return name
    return None


def _summarise(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False, include_input=False):
        where = ".".join(str(loc) for loc in item["loc"]) or "<root>"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
