"""Routing a request: to the running task itself, else by the request workflow run with a
deadline, withdrawn if no worker takes it.

A running task takes a request as an update (:func:`to_running_task`) and routes it with
``request.received`` itself: no workflow per message (issue 13). Not with update-with-start:
the chain may refuse a request (a stranger's mention), and a task started with the update
would exist before it could. Only when no task runs (or the route names another) does the
request workflow route it.

Temporal accepts a workflow with no worker polling its task queue and keeps it waiting
forever, so :meth:`harness.temporal.client.HarnessClient.receive` would never
answer. :func:`route` bounds the wait; past it the request is withdrawn (terminated,
so a worker that starts later routes nothing the sender was told was dropped) and
:class:`TaskNoWorker` says which queue had no worker. Delivering the routed message
is the client's; mapping Temporal's other errors is
:func:`harness.temporal.client.error_mapping.mapped`.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Final

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from harness.domain import RequestRoute
from harness.hooks.contexts import RequestReceivedContext
from harness.temporal import REQUEST_WORKFLOW
from harness.temporal.errors import TaskNotFound, TaskNoWorker, TaskRejected
from harness.temporal.models import Delivery, RequestInput

FINISHED: Final = "task has finished"
"""The reason of the :class:`TaskRejected` an update to a closed task gets."""

ROUTE_WAIT_SECONDS: Final = 10.0
"""How long :func:`route` waits for a worker when ``update_timeout_seconds`` is unset: a
worker that polls takes a request in milliseconds, so past this none does, and the sender
is told (:class:`TaskNoWorker`) instead of nothing."""


async def to_running_task(
    temporal: Client,
    request: RequestReceivedContext,
    key: str,
    timeout: timedelta | None,
    mapped: AbstractAsyncContextManager[None],
) -> Delivery | None:
    """Hand ``request`` to its task if that runs (update ``key``: sent twice, taken once).

    Returns:
        Where it went; ``None`` when no such task runs or its route names another task
        (the caller then routes it with :func:`route`).

    Raises:
        TaskRejected: the chain refused it, or the task is finishing.
    """
    handle = temporal.get_workflow_handle(request.task.task_id if request.task else "-")
    try:
        async with mapped:
            delivery: Delivery = await handle.execute_update(
                "request", request, id=key, result_type=Delivery, rpc_timeout=timeout
            )
    except TaskNotFound:
        return None
    except TaskRejected as error:
        if error.reason == FINISHED:
            return None
        raise
    return delivery if delivery.position else None


async def route(
    temporal: Client,
    request: RequestInput,
    *,
    key: str,
    task_id: str,
    task_queue: str,
    wait: float,
    rpc_seconds: float,
    mapped: AbstractAsyncContextManager[None],
) -> RequestRoute:
    """Run the request workflow ``key`` within ``wait`` (a second run gets the first decision).

    Args:
        temporal: the connected client.
        request: what the workflow routes.
        key: the request workflow's id.
        task_id: the task the request is for (named in the error).
        task_queue: where the workflow runs.
        wait: seconds a worker gets to route it.
        rpc_seconds: the budget of the one call that asks Temporal about pollers.
        mapped: the caller's mapping of Temporal's other errors.

    Raises:
        TaskNoWorker: no worker routed it in time; it was withdrawn.
    """
    try:
        async with asyncio.timeout(wait), mapped:
            try:
                found: RequestRoute = await temporal.execute_workflow(
                    REQUEST_WORKFLOW,
                    request,
                    id=key,
                    task_queue=task_queue,
                    result_type=RequestRoute,
                    id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                    id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                )
            except WorkflowAlreadyStartedError:  # routed before: the first decision stands
                found = await temporal.get_workflow_handle(key, result_type=RequestRoute).result()
    except TimeoutError:
        try:  # best effort: a failure here changes neither what happened nor what is said
            await temporal.get_workflow_handle(key).terminate(
                reason=f"no worker answered within {wait:g} s"
            )
        except RPCError:  # gone already (it finished just now, or never started)
            pass
        seen = await pollers(temporal, task_queue, rpc_seconds)
        raise TaskNoWorker(
            task_id=task_id, task_queue=task_queue, seconds=wait, pollers=seen
        ) from None
    return found


async def pollers(temporal: Client, task_queue: str, rpc_seconds: float) -> int:
    """How many workers Temporal saw polling ``task_queue`` for workflow tasks recently.

    Temporal keeps a poller in this list for a few minutes after it last polled, so a
    worker that died just now still counts; 0 means none at all, ``-1`` that Temporal
    did not say.
    """
    request = DescribeTaskQueueRequest(
        namespace=temporal.namespace,
        task_queue=TaskQueue(name=task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    try:
        described = await temporal.workflow_service.describe_task_queue(
            request, timeout=timedelta(seconds=rpc_seconds)
        )
    except RPCError:
        return -1
    return len(described.pollers)
