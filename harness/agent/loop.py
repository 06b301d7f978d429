"""AgentLoop: the order in which the agent's operations run, and nothing else.

Design note — how the workflow drives it. Every step below is one operation, and an
:class:`~harness.agent.operations.Operations` performs it, given only the context (``await
runner.run(ctx)``): in unit tests and a named agent's loop
:class:`~harness.agent.operations.InProcess` on a :class:`~harness.hooks.HookManager`; in the
task workflow an adapter that runs one hooked activity per operation
(``workflow.execute_activity`` of the activity for that operation, with the context as its
one pydantic input). A tool call's "no" is read as a value in both places
(:func:`harness.agent.operations.perform`: the activity returns it as its result); any
other operation's abort is raised as a :class:`~harness.hooks.HookAbort`, so the loop
sees the same thing in both places. The loop itself does no I/O, reads no clock and draws
no random numbers: it is deterministic workflow code, and its
:class:`~harness.agent.state.AgentState` is the workflow's to keep.

For one request (``handle``)::

    system_one.invoked                      triage: answer / plan / ask
      ask    -> help.requested, wait, help.decided, then the turns below
      answer -> (text) reply | (no text) the turns below
      plan   -> plan.created; per step: step.started,
                (agent.invoked | the turns below), step.finished
    turns, until the model stops calling tools or max_turns:
      compaction.trigger [-> compaction.keep -> compaction.summarise]
      context.created -> llm.invoked -> tool_calls.extracted
      per call: ask_human      -> help.requested, wait, help.decided
                otherwise      -> tool.invoked; if a pre executor asks (the approval
                                  policy): help.requested, wait, help.decided
                                  [-> tool.invoked again, with the approval]

A ``Refused`` outcome of ``tool.invoked`` (a pre executor's veto, or any abort of that
one call) does not end the loop: it becomes that call's tool result (worded by
:func:`harness.replies.tool_refused`) with ``is_error``, and the model sees it
on its next turn. Aborts of any other operation propagate (a task failure or
refusal, as DESIGN.md says). Waiting for people is a :class:`HelpWaiter`: in the
workflow a ``wait_condition`` on state an update handler sets when a Slack button is
clicked (no activity, no worker slot held); a click that ``help.decided`` refuses (a
watcher's) is reported with :meth:`HelpWaiter.refused` and the loop waits again; an
accepted one with :meth:`HelpWaiter.accepted`. A question without options has no
buttons: in the workflow a decider's reply in the thread answers it.
"""

from __future__ import annotations

from typing import Any

from harness.agent import budget
from harness.agent.loop_steps import LoopSteps
from harness.domain import Message, StepOutcome, Triage
from harness.hooks import REQUESTED_BY, HookAbort
from harness.hooks.contexts import (
    AgentInvokedContext,
    PlanCreatedContext,
    StepFinishedContext,
    StepStartedContext,
    SystemOneInvokedContext,
)


class AgentLoop(LoopSteps):
    """Sequences one task's agent operations over :class:`~harness.agent.operations.Operations`.

    Args:
        runner: performs each operation (``InProcess(manager)``, or the workflow's adapter).
        waiter: waits for people's answers to help requests.
        state: the task's loop state; changed in place.
        identity: task ref, participants and correlation id every context carries.
    """

    async def handle(self, request: str, *, sender: str = "") -> str:
        """Answer one request from the thread, running every operation it needs.

        Returns:
            The reply to post (also appended to the transcript).

        Raises:
            HookAbort: an operation other than a single tool call was aborted.
        """
        self.state.transcript.append(Message(role="user", content=request, name=sender))
        self.state.requested_by = sender  # approval rules by role read who asked
        try:
            return await self._answer(request)
        except budget.BudgetSpent as spent:  # the owner chose to stop: an answer, not a failure
            return self._reply(spent.reply)

    async def _answer(self, request: str) -> str:
        triage = await self._triage(request)
        if triage.decision == "answer" and triage.answer:
            return self._reply(triage.answer)
        if triage.decision == "ask":
            answer = await self.ask(triage.question or "Can you tell me more?", ())
            self.state.transcript.append(Message(role="user", content=answer))
        if triage.decision == "plan":
            return await self._run_plan(request)
        return await self.run_turns()

    async def _triage(self, request: str) -> Triage:
        model = self.state.system_one_model or self.state.model
        await budget.gate(self, budget.MODEL_LIMITS)
        ctx = await self.run(
            SystemOneInvokedContext,
            model=model,
            request=request,
            transcript=tuple(self.state.transcript[:-1]),
        )
        if ctx.result is not None:
            await budget.count(self, tokens=ctx.result.usage, model=model)
        return ctx.result or Triage(decision="answer", answer="")

    async def _run_plan(self, goal: str) -> str:
        planned = await self.run(PlanCreatedContext, goal=goal)
        if planned.result is not None:
            await budget.count(self, tokens=planned.result.usage, model=self.state.model)
        steps = planned.result.steps if planned.result else ()
        lines = []
        for index, step in enumerate(steps):
            started = await self.run(StepStartedContext, index=index, step=step)
            step = started.result or step
            task = step.detail or step.title
            if step.agent:
                await budget.gate(self)
                state = self.state
                invoked = await self.run(
                    AgentInvokedContext,
                    agent=step.agent,
                    input=task,
                    model=state.model,
                    approvals=state.approvals or state.default_approvals,
                    approved_tools=tuple(state.approved_tools),
                )
                if invoked.result is not None:  # the named agent's own calls count too
                    await budget.count(self, usage=invoked.result.usage)
                output = invoked.result.text if invoked.result else ""
                self.state.transcript.append(
                    Message(role="assistant", content=f"[{step.agent}] {output}")
                )
            else:
                content = _step_prompt(index, len(steps), step.title, task)
                self.state.transcript.append(Message(role="user", content=content))
                output = await self.run_turns()
            finished = await self.run(StepFinishedContext, index=index, step=step, output=output)
            outcome = finished.result or StepOutcome(status="done", summary=output)
            lines.append(f"{index + 1}. {step.title} — {outcome.status}: {outcome.summary}")
        return self._reply("\n".join(lines))

    def _reply(self, text: str) -> str:
        self.state.transcript.append(Message(role="assistant", content=text))
        return text

    def context_fields(self) -> dict[str, Any]:
        """Identity fields plus a fresh, deterministic idempotency key."""
        self.state.sequence += 1
        identity = self.identity
        return {
            "task": identity.task,
            "participants": identity.participants,
            "correlation_id": identity.correlation_id,
            "idempotency_key": f"{identity.correlation_id or identity.task.task_id}:"
            f"{self.state.sequence}",
            "entities": {
                "model": self.state.model,
                "effort": self.state.effort,
                REQUESTED_BY: self.state.requested_by,
            },
        }


def _step_prompt(index: int, count: int, title: str, task: str) -> str:
    """What the model reads of plan step ``index``: its title, then its detail when that
    says more. A title cut from the detail (``call ask_human {"question": …``) is left out:
    repeated, its broken half would read as a request of its own (issue 26: a question
    asked twice)."""
    head = f"Step {index + 1} of {count}"
    shown = " ".join(title.split()).removesuffix("…").strip()
    if " ".join(task.split()).startswith(shown):
        return f"{head}: {task}"
    return f"{head}: {title}\n{task}"


__all__ = ["AgentLoop", "HookAbort"]
