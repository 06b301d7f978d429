"""Conversation: a task answering its thread with the agent loop, one message at a time.

Workflow code (sandboxed, deterministic). The task workflow queues each message it
receives; :meth:`Conversation.serve` runs the :class:`~harness.agent.loop.AgentLoop` for
it (every step an activity, through :class:`~.agent_runner.LoopOperations`) and posts the
reply with ``channel.sent``. The loop's state is plain data the workflow keeps and carries
across continue-as-new. Waiting for people is a ``wait_condition`` on answers the ``help``
update delivers (or, for a question with no buttons, a reply in the thread the ``message``
update delivers): no activity runs and no worker slot is held while a question is open,
and a worker restart loses nothing (the wait is replayed from history).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from temporalio import workflow
from temporalio.exceptions import ApplicationError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.agent.loop import AgentLoop
    from harness.agent.loop_steps import HelpAnswer
    from harness.agent.state import LOOP_DEFAULTS_KEY, AgentState, LoopDefaults, LoopIdentity
    from harness.domain import (
        ChannelMessage,
        HelpDecision,
        HelpRequest,
        Message,
        MidTurn,
        TurnState,
    )
    from harness.domain.outcome import stopped
    from harness.hooks import HookAbort, HookContext
    from harness.hooks.contexts import ChannelSentContext, PersistenceReadContext
    from harness.temporal import SUBTASK_STOP_END_PATCH
    from harness.temporal.models import TaskInput
    from harness.temporal.workflow.agent_runner import LoopOperations
    from harness.temporal.workflow.failures import outcome_of
    from harness.temporal.workflow.host import ConversationHost
    from harness.temporal.workflow.people import People
    from harness.temporal.workflow.retries import OperationRunner
    from harness.temporal.workflow.run_limits import RUN_LIMITS_PATCH, RunLimits, rolled_over
    from harness.temporal.workflow.subtasks import Cut
    from harness.temporal.workflow.turn import Turn, placeholder


class Conversation:
    """The agent loop of one task, fed by its messages and the people's answers.

    Args:
        host: the task workflow.
        ops: the workflow's operation runner.
        state: the loop state (a continued run passes the previous run's).
    """

    def __init__(
        self,
        host: ConversationHost,
        ops: OperationRunner,
        state: AgentState | None = None,
        before: Callable[[HookContext], Awaitable[None]] | None = None,
    ) -> None:
        self._host = host
        self._ops = ops
        self._loop_ops = LoopOperations(ops, say=self.notify, before=before)
        self.state = state or AgentState()
        self._configured = False
        self._pending: list[ChannelMessage] = []
        self.people = People(host, self.post, self._where)
        self.busy = False
        self.limits = RunLimits()
        self._serving: asyncio.Task[None] | None = None
        self._answering: ChannelMessage | None = None
        self._steering: list[ChannelMessage] = []
        self.turn: Turn | None = None
        """The turn running now (``None``: idle)."""
        self._turn_task: asyncio.Task[None] | None = None
        self._replying = False
        self.last_error = ""
        """The last turn's failure, in one sentence (the status view shows it)."""
        self.one_request = False
        """A sub-task's: its turn is its last, so a stop's summary does not say it waits."""
        self.ended: tuple[TurnState, str] | None = None
        """How the last turn ended and what it posted (``None``: no turn yet)."""
        self.said_its_end = False
        """The last turn was cut off by the task's end, or was a sub-task's stopped, and its
        summary said so (a sub-task's end line need not say it again)."""
        self.latest_thread = ""
        """The thread of the turn running now, or else of the last one (``""``: the task's
        first), where a sub-task a slash command starts posts; kept over continue-as-new."""

    def receive(self, message: ChannelMessage) -> MidTurn | None:
        """Take ``message`` (the ``message`` update stored it); what happened to it.

        While a question without options is open, a reply in the task's thread is its
        answer (``None``; see :meth:`People.reply`), not a request. While a turn runs, the
        task's mid-turn mode decides: ``steer`` keeps it for the loop's next safe boundary,
        ``interrupt`` stops the turn and answers it first, ``queue`` (and any message while
        nothing runs) queues it.
        """
        if self.people.reply(message):
            return None
        mode = self._host.mid_turn if self._host.alive else "queue"
        if self.turn is None or self._replying:
            mode = "queue"
        if mode == "steer":
            self._steering.append(message)
        elif mode == "interrupt":
            self._pending.insert(0, message)
            self.stop_turn(message.user, "interrupted by a new message")
        else:
            self._pending.append(message)
        return mode

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing being answered."""
        return not self._pending and not self.busy

    @property
    def queued(self) -> int:
        """Messages waiting for their turn."""
        return len(self._pending)

    def waiting_for(self, request_id: str) -> bool:
        """Whether ``request_id`` is a question of the request being answered now."""
        return self.people.waiting_for(request_id)

    def answer(self, request_id: str, answer: HelpAnswer) -> None:
        """A click on a help request's button (the ``help`` update); the loop judges it."""
        self.people.answer(request_id, answer)

    def view(self) -> dict[str, object]:
        """What the status view shows of the conversation (:class:`~harness.domain.TaskSnapshot`
        fields): the turn running now, the queue, the open questions, the last error."""
        turn = self.turn
        return {
            "turn": turn.progress if turn else None,
            "queued": len(self._pending),
            "pending": self.people.pending(),
            "last_error": self.last_error,
        }

    def stop_turn(self, by: str, reason: str = "") -> bool:
        """Cancel the turn running now (durably: its activity is cancelled, AbandonObservers
        run); the thread gets what was done and what was not. Whether a turn was stopped."""
        turn, task = self.turn, self._turn_task
        if turn is None or task is None or task.done() or self._replying or turn.stopping:
            return False
        turn.stopped_by, turn.stop_reason = by, reason
        task.cancel()
        return True

    def cut_off(self) -> bool:
        """Whether this is a stopped turn's task: a stop lost to an operation done meanwhile."""
        turn = self.turn
        return turn is not None and turn.stopping and asyncio.current_task() is self._turn_task

    async def run_until(
        self,
        finished: Callable[[], bool],
        children: Callable[[], list[str]],
        continued: Callable[[], TaskInput],
        end_children: Callable[[], Awaitable[Cut]],
    ) -> None:
        """Answer messages until ``finished()``; continue as new once a run limit is reached.

        Continue-as-new happens only between requests (nothing queued or running),
        carrying the loop state and the transcript's reference in ``continued()``. Running
        sub-tasks hold it back at most ``subtask_wait_seconds``
        (:mod:`harness.temporal.workflow.run_limits`); then ``end_children()`` cancels them.
        """
        limited = workflow.patched(RUN_LIMITS_PATCH)
        if limited:  # the limits are known before the first update, not at the first message
            await self._configure()
        while True:
            pause = (
                (lambda: self.limits.may_roll(bool(children())))
                if limited
                else (lambda: self.limits.events_full() and not children())
            )
            serving = asyncio.create_task(self.serve(pause, wake=limited))
            self._serving = serving
            await workflow.wait_condition(lambda s=serving: finished() or s.done())  # type: ignore[misc]  # the default binds this iteration's task
            if finished():
                # Let the request in flight end (not cut off mid-activity); a question
                # still open is simply abandoned.
                await workflow.wait_condition(lambda: not self.busy or self.people.asking)
                self.stop()
                return
            serving.result()
            await workflow.wait_condition(workflow.all_handlers_finished)
            if not finished() and self.idle:
                if limited and children():
                    left = await end_children()
                    why = self.limits.reached()
                    await self.post(self._in_thread(None, rolled_over(why, left)))
                    continue  # what arrived meanwhile is answered before the roll-over
                workflow.continue_as_new(continued())

    def stop(self, *, closing: bool = False) -> None:
        """Stop answering (the task is ending): the request in progress is cancelled; when
        ``closing``, its turn still posts how it ended (a progress message left final)."""
        if closing and self.turn is not None:
            self.turn.close(replies.TASK_ENDED)
        if self._serving is not None and not self._serving.done():
            self._serving.cancel()

    async def serve(self, should_pause: Callable[[], bool], *, wake: bool = False) -> None:
        """Answer queued messages in order until cancelled or ``should_pause()`` after one.

        With ``wake``, ``should_pause()`` becoming true while nothing is queued ends it
        too (a limit reached by commands alone, or sub-tasks ending or outwaited).
        """
        while True:
            if wake:
                await self.limits.until(lambda: bool(self._pending), should_pause)
                if not self._pending:
                    return
            else:
                await workflow.wait_condition(lambda: bool(self._pending))
            message = self._pending.pop(0)
            self.busy = True
            try:
                if self._host.alive:
                    self._turn_task = asyncio.create_task(self._answer(message))
                    await self._turn_task
                else:
                    await self._answer(message)
            finally:
                self.busy = False
                self._turn_task = None
            if not self._pending and should_pause():
                return

    async def skill(self, name: str, *, load: bool) -> None:
        """Load (``skill.loaded``) or unload (``skill.unloaded``) a skill for later requests.

        Raises:
            ApplicationError: the skill could not be loaded (the command's reply says why).
        """
        loop = await self._loop()
        try:
            if load:
                await loop.load_skill(name)
            elif not await loop.unload_skill(name):
                raise ApplicationError(replies.skill_not_loaded(name), non_retryable=True)
        except HookAbort as abort:
            raise ApplicationError(abort.reason, non_retryable=True) from None

    async def _loop(self, correlation_id: str = "") -> AgentLoop:
        host = self._host
        if not self._configured:
            await self._configure()
        self.state.model, self.state.effort = host.model, host.effort
        self.state.ask_first = not host.alive  # an old history asked before the call ran
        identity = LoopIdentity(
            task=host.ref,
            participants=host.participants,
            correlation_id=host.correlation(correlation_id),
        )
        return AgentLoop(self._loop_ops, self, self.state, identity)

    async def _answer(self, message: ChannelMessage) -> None:
        self._answering = message
        self.latest_thread = message.thread
        turn = self._begin(message) if self._host.alive else None
        state: TurnState = "answered"
        try:
            loop = await self._loop(message.ts)
            if turn is not None and self._progress_on:
                await self._post_progress(turn)
            reply = await loop.handle(message.text, sender=message.user)
            self.last_error = ""  # answered: the task has recovered from the last failure
        except HookAbort as abort:
            reply, state = replies.turn(stopped(abort)), "failed"
            self.last_error = reply
        except ApplicationError as error:
            # One request failing is reported in its thread (in words; the detail goes to
            # the log), and the task goes on.
            workflow.logger.warning("answering a message failed: %s", error)
            reply, state = replies.turn(outcome_of(error)), "failed"
            self.last_error = reply
        except BaseException as error:
            if turn is None or not turn.stopping or not is_cancelled_exception(error):
                raise
            # A sub-task's one request stopped: its summary is its end line (issue 26).
            turn.ends_task = (
                turn.last and not turn.closing and workflow.patched(SUBTASK_STOP_END_PATCH)
            )
            reply, state = turn.summary(workflow.now().timestamp()), "stopped"
        finally:
            self.people.clear()  # this request's questions are over; later clicks are refused
            self._answering = None
        self._replying = True
        try:
            if turn is not None:
                turn.end(state)
            self.ended = (state, reply or replies.NO_ANSWER)
            await self.post(self._in_thread(message, self.ended[1]))
            self.said_its_end = (
                turn is not None and (turn.closing or turn.ends_task) and state == "stopped"
            )
        finally:
            self._replying = False
            self._end_turn()

    def _begin(self, message: ChannelMessage) -> Turn:
        """Start a turn; its progress rides on every loop context from now on."""
        turn = Turn(message, self._host.ref.thread, workflow.now().timestamp())
        turn.last = self.one_request
        self.turn = self._loop_ops.turn = turn
        return turn

    @property
    def _progress_on(self) -> bool:
        defaults = self.limits.defaults
        return defaults is None or defaults.progress

    async def _post_progress(self, turn: Turn) -> None:
        """Post the turn's progress message; its ``ts`` is kept in workflow state, so after a
        worker restart the same message goes on being updated."""
        sent = await self.post(placeholder(turn, self._host.ref.task_id))
        if sent is not None and sent.ts:
            turn.posted(sent.ts)

    def _end_turn(self) -> None:
        """The turn is over; what steering it never took is answered next, in order."""
        self.turn = self._loop_ops.turn = None
        left, self._steering = self._steering, []
        self._pending[:0] = left

    def _in_thread(self, message: ChannelMessage | None, text: str) -> ChannelMessage:
        """A post in the thread ``message`` came from (the task's own thread by default)."""
        ref = self._host.ref
        channel, thread = (message.channel, message.thread) if message else ("", "")
        return ChannelMessage(
            channel=channel or ref.channel, thread=thread or ref.thread, text=text
        )

    def _where(self) -> tuple[str, str]:
        """The channel and thread of the request being answered (its progress message's)."""
        here = self._in_thread(self._answering, "")
        return here.channel, here.thread

    async def _configure(self) -> None:
        """Read the worker's loop defaults (tools, budgets) once per run."""
        read = await self._ops.run(
            PersistenceReadContext(**self._common(), key=LOOP_DEFAULTS_KEY),
        )
        if read.result is not None and read.result.content:
            defaults = LoopDefaults.model_validate_json(read.result.content)
            defaults.apply(self.state)
            self.limits.defaults = defaults
        self._configured = True

    async def post(self, message: ChannelMessage) -> ChannelMessage | None:
        """``channel.sent``; a post that gives up is logged (the reply stays in the transcript)."""
        message = replies.labelled(replies.subtask_label(self._host.ref.task_id), message)
        try:
            sent = await self._loop_ops.run(ChannelSentContext(**self._common(), message=message))
        except (ApplicationError, HookAbort) as error:
            workflow.logger.warning("could not post to the thread: %s", error)
            return None
        return sent.result

    async def wait(self, request: HelpRequest) -> HelpAnswer:
        """Post the question (once), then wait for a click or reply (no worker slot held)."""
        if self.turn is not None:
            self.turn.doing(request.question, "waiting")  # shown as "waiting for an answer: …"
        return await self.people.wait(request)

    async def accepted(self, decision: HelpDecision) -> None:
        """``help.decided`` accepted an answer (or the question timed out): running again."""
        if self.turn is not None:
            self.turn.doing(replies.GOING_ON)
        await self.people.accepted(decision)

    async def refused(self, answer: HelpAnswer, reason: str) -> None:
        """Tell only the person whose click was refused, then wait again."""
        await self.people.refused(answer, reason)

    def steering(self) -> tuple[Message, ...]:
        """Messages that arrived mid-turn in ``steer`` mode, once each (see :meth:`receive`)."""
        taken, self._steering = self._steering, []
        return tuple(Message(role="user", content=m.text, name=m.user) for m in taken)

    async def notify(self, text: str) -> None:
        """Say ``text`` in the thread of the request being answered."""
        await self.post(self._in_thread(self._answering, text))

    def _common(self) -> dict[str, object]:
        host = self._host
        return {
            "task": host.ref,
            "participants": host.participants,
            "correlation_id": host.correlation(),
        }
