"""RequestWorkflow: runs ``request.received`` in the worker and returns where the request goes.

A plain message may open a task or belong to one that runs already, and that
decision is an operation like any other (DESIGN.md: every operation runs through
hooks, and hooks never run outside an activity). The task may not exist yet, so the
decision cannot run inside the task's own workflow: this short workflow runs the
hooked activity and returns the :class:`RequestRoute`; the client acts on it
(:meth:`harness.temporal.client.HarnessClient.receive`). Commands never come here.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.domain import RequestRoute
    from harness.temporal import REQUEST_WORKFLOW
    from harness.temporal.models import RequestInput
    from harness.temporal.workflow import patches
    from harness.temporal.workflow.retries import OperationRunner


@workflow.defn(name=REQUEST_WORKFLOW)
class RequestWorkflow:
    """One incoming request, routed by the ``request.received`` chain."""

    @workflow.run
    async def run(self, request: RequestInput) -> RequestRoute:
        """Run ``request.received`` (with the workflow's retries) and return its route.

        Raises:
            ApplicationError: the chain gave up or aborted (type ``TaskGaveUp``), or no
                body set a route.
        """
        patches.settle()  # before the step (patches.py says why)
        out = await OperationRunner(request.policy).run(request.request)
        if out.result is None:
            raise unrouted()
        route: RequestRoute = out.result
        return route


def unrouted() -> ApplicationError:
    """The failure of a request no body routed (here and in the task's ``request`` update);
    its message is what the sender reads."""
    return ApplicationError(replies.unrouted(), type="NoRoute", non_retryable=True)
