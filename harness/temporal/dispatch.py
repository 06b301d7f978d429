"""The ``dispatch_hooks`` activity: runs ``activity.failed`` and ``activity.retried``.

Hooks never run in workflow code, so between attempts the workflow hands the
failure (or the coming retry) to this activity and acts on the decision it returns.
"""

from __future__ import annotations

from temporalio import activity

from harness.hooks.contexts import ActivityFailedContext, ActivityRetriedContext
from harness.temporal import DISPATCH_HOOKS
from harness.temporal.wrapper import ActivityHost, hooked

RetryContext = ActivityFailedContext | ActivityRetriedContext


class DispatchHooks(ActivityHost):
    """Hosts ``dispatch_hooks``; ``HarnessActivities`` extends it with the other activities."""

    @activity.defn(name=DISPATCH_HOOKS)
    @hooked()
    async def dispatch_hooks(self, ctx: RetryContext) -> RetryContext:
        """Run the chains of the operation the context belongs to (failed or retried).

        The two context types are told apart by their fields (both forbid extras).
        """
        return ctx
