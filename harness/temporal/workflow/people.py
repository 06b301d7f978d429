"""The questions a task asks its people: posted once, answered by a click or a reply, timed out.

Workflow code (sandboxed, deterministic). Waiting is a ``wait_condition`` on answers the
``help`` update delivers (or, for a question without buttons, a reply in the thread the
``message`` update delivers): no activity runs and no worker slot is held while a
question is open, and a worker restart loses nothing. A question with a
``timeout_seconds`` that nobody answers in time ends as *timed out*: the loop is told
``timed_out`` (never an answer in anybody's name) and the thread reads that nobody
answered, so an unanswered approval is never reported as a denial. A question that closes
(answered, timed out, or left open by a stop) has its message edited to say how, its
buttons gone (:data:`QUESTIONS_CLOSED_PATCH`); a later click on it is answered with
that, in words. A question is asked in the thread of the turn that asks it, where that
turn's progress message is (:data:`TURN_THREAD_PATCH`): a later mention may join the task
in a thread of its own, and its people answer there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.agent.loop_steps import HelpAnswer
    from harness.channels import closed_blocks, help_blocks, question_text
    from harness.domain import (
        ChannelMessage,
        HelpDecision,
        HelpRequest,
        PendingQuestion,
        TaskStatus,
        duration,
    )
    from harness.temporal.workflow.host import TaskHost


Post = Callable[[ChannelMessage], Awaitable[ChannelMessage | None]]
Place = tuple[str, str]
"""``(channel, thread)`` of a post."""

QUESTIONS_CLOSED_PATCH: Final = "questions-closed-v1"
"""Issue 26: a closed question's message is edited (its buttons removed), a click that
came too late is told so, and a question left open by a stop puts the task back to
``running``. Histories from before replay without these posts and transitions."""

TURN_THREAD_PATCH: Final = "question-in-turn-thread-v1"
"""Issue 26: a question (and what closes it) is posted in the thread of the turn asking it,
and only a reply there answers it. Histories from before asked in the task's first thread."""

CLOSED_KEPT: Final = 32
"""How many closed questions the task remembers, to tell a late click how each closed."""


class People:
    """The open questions of the request being answered.

    Args:
        host: the task workflow.
        post: posts to a thread of the task (``channel.sent``).
        where: the channel and thread of the turn running now (its progress message's).
    """

    def __init__(self, host: TaskHost, post: Post, where: Callable[[], Place]) -> None:
        self._host = host
        self._post = post
        self._where = where
        self._places: dict[str, Place] = {}
        """Open questions' places: request id -> where it was asked."""
        self._answers: dict[str, list[HelpAnswer]] = {}
        self._asked: dict[str, PendingQuestion] = {}
        self._posted: set[str] = set()
        self._shown: dict[str, tuple[HelpRequest, str]] = {}
        """Open questions' posts: request id -> (the request as posted, its message ``ts``)."""
        self._closed: dict[str, str] = {}
        """Closed questions: request id -> how it closed (the last :data:`CLOSED_KEPT`)."""
        self.open: HelpRequest | None = None
        """The question waiting for an answer now (a reply answers one without options)."""
        self.asking = False
        """Whether the loop is blocked on a question (a finishing task need not wait for it)."""

    def waiting_for(self, request_id: str) -> bool:
        """Whether ``request_id`` is a question of the request being answered now."""
        return request_id in self._answers

    def closed(self, request_id: str) -> str:
        """How question ``request_id`` closed (a note of :mod:`~harness.replies`)."""
        return self._closed.get(request_id, "")

    def answer(self, request_id: str, answer: HelpAnswer) -> None:
        """A click on a help request's button (the ``help`` update); the loop judges it."""
        self._answers.setdefault(request_id, []).append(answer)

    def reply(self, message: ChannelMessage) -> bool:
        """Take ``message`` as the answer to the open question without options, if it is one.

        Such a question has no buttons, so a reply in the thread it was asked in is the only
        way to answer it; ``help.decided`` judges the sender as it judges a click.
        """
        question = self.open
        if question is None or question.options:
            return False
        if message.thread not in ("", self._place(question.request_id)[1]):
            return False
        self.answer(question.request_id, HelpAnswer(decided_by=message.user, choice=message.text))
        return True

    def pending(self) -> tuple[PendingQuestion, ...]:
        """The questions asked and not yet decided, for the status view."""
        return tuple(self._asked.values())

    def clear(self) -> None:
        """The request is over: its questions are closed (later clicks are refused)."""
        self._answers.clear()
        self._asked.clear()
        self._shown.clear()
        self._places.clear()
        self.open = None

    async def _stopped(self, request: HelpRequest) -> None:
        """The turn was stopped while ``request`` waited for an answer: it closes, edited to
        say so, and the task, waiting on nobody now, is running again (unless it is ending)."""
        self._answers.pop(request.request_id, None)
        self._asked.pop(request.request_id, None)
        self.open = None
        ended = self._host.finishing  # the task's end closed it, not a person's stop
        await self._close(
            request.request_id, replies.QUESTION_TASK_ENDED if ended else replies.QUESTION_STOPPED
        )
        if self._host.status == TaskStatus.WAITING and not self._host.finishing:
            await self._host.transition(TaskStatus.RUNNING, replies.QUESTION_STOPPED)

    async def _close(self, request_id: str, note: str) -> None:
        """Remember how ``request_id`` closed, and edit its message: ``note``, no buttons."""
        self._closed[request_id] = note
        while len(self._closed) > CLOSED_KEPT:
            del self._closed[next(iter(self._closed))]
        shown = self._shown.pop(request_id, None)
        if shown is None:
            return
        request, ts = shown
        channel, thread = self._place(request_id)
        await self._post(
            ChannelMessage(
                channel=channel,
                thread=thread,
                ts=ts,
                text=f"{request.question} ({note})",
                blocks=closed_blocks(request, note),
            )
        )

    async def wait(self, request: HelpRequest) -> HelpAnswer:
        """Post the question (once), then wait for a click or reply, or until it times out."""
        host = self._host
        self._answers.setdefault(request.request_id, [])
        self.open = request
        if request.request_id not in self._posted:
            self._posted.add(request.request_id)
            if workflow.patched(TURN_THREAD_PATCH):
                self._places[request.request_id] = self._where()
            channel, thread = self._place(request.request_id)
            self._asked[request.request_id] = PendingQuestion(
                request_id=request.request_id,
                kind=request.kind,
                question=request.question,
                asked_at=workflow.now().timestamp(),
                timeout_seconds=request.timeout_seconds,
            )
            sent = await self._post(
                ChannelMessage(
                    channel=channel,
                    thread=thread,
                    text=question_text(request),
                    blocks=help_blocks(request),
                )
            )
            if sent is not None and sent.ts:
                self._shown[request.request_id] = (request, sent.ts)
        if host.status != TaskStatus.WAITING:
            await host.transition(TaskStatus.WAITING, f"waiting for an answer: {request.question}")
        answers = self._answers[request.request_id]
        left = self._left(request)
        self.asking = True
        try:
            await workflow.wait_condition(lambda: bool(answers), timeout=left)
        except TimeoutError:
            return await self._timed_out(request)
        except asyncio.CancelledError:  # a stop (or the task's end) cut the turn off
            if workflow.patched(QUESTIONS_CLOSED_PATCH):
                self.asking = False  # a finishing task lets this end before it stops serving
                await self._stopped(request)
            raise
        finally:
            self.asking = False
        return answers.pop(0)

    def _place(self, request_id: str) -> Place:
        """Where question ``request_id`` was asked (the task's first thread before
        :data:`TURN_THREAD_PATCH`, or once the question is forgotten)."""
        ref = self._host.ref
        return self._places.get(request_id, (ref.channel, ref.thread))

    def _left(self, request: HelpRequest) -> float | None:
        """Seconds left before ``request`` times out (``None``: it never does)."""
        if request.timeout_seconds <= 0:
            return None
        asked = self._asked.get(request.request_id)
        waited = workflow.now().timestamp() - asked.asked_at if asked else 0.0
        return max(request.timeout_seconds - waited, 0.001)

    async def _timed_out(self, request: HelpRequest) -> HelpAnswer:
        """Say in the thread that nobody answered; the loop gets a timed-out answer."""
        channel, thread = self._place(request.request_id)
        self._answers.pop(request.request_id, None)
        self._asked.pop(request.request_id, None)
        self.open = None
        text = replies.question_timed_out(
            request.question,
            duration(request.timeout_seconds),
            approval=request.kind == "approval",
        )
        await self._post(ChannelMessage(channel=channel, thread=thread, text=text))
        return HelpAnswer(decided_by="", choice="", timed_out=True)

    async def accepted(self, decision: HelpDecision) -> None:
        """Back to ``running`` once ``help.decided`` accepted (a refused answer changes nothing).

        Only now is the question closed to replies: one arriving while ``help.decided``
        judged a watcher's answer is the next answer, not a new request.
        """
        self.open = None
        self._asked.pop(decision.request_id, None)
        who = decision.decided_by or "nobody (timed out)"
        await self._host.transition(TaskStatus.RUNNING, f"{who} answered")
        if not workflow.patched(QUESTIONS_CLOSED_PATCH):
            return
        # Closed to clicks now: one that came meanwhile (a second approver) is told so.
        late = self._answers.pop(decision.request_id, [])
        note = (
            replies.QUESTION_TIMED_OUT
            if decision.timed_out
            else replies.question_answered(decision.decided_by, decision.choice)
        )
        await self._close(decision.request_id, note)
        for answer in late:
            if answer.decided_by:
                await self._tell(decision.request_id, answer.decided_by, replies.late_click(note))

    async def refused(self, answer: HelpAnswer, reason: str) -> None:
        """Tell only the person whose click was refused (an ephemeral post), then wait again."""
        asked = self.open.request_id if self.open is not None else ""
        await self._tell(asked, answer.decided_by, replies.refused(reason))

    async def _tell(self, request_id: str, user: str, text: str) -> None:
        """Say ``text`` to ``user`` only (an ephemeral post), where ``request_id`` was asked."""
        channel, thread = self._place(request_id)
        await self._post(ChannelMessage(channel=channel, thread=thread, user=user, text=text))
