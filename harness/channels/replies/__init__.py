"""The one reply rule: every sentence a person reads in Slack is worded in this package, as
functions of typed values (an :data:`~harness.domain.outcome.Outcome`, a status, names).

Split by concept: outcomes (refused, failed, retried), questions, a task's life, sub-tasks,
people and their roles (and the help), commands' replies, usage problems, policies' reasons,
budgets, the bot's own notices, the progress message, how a message fits Slack, and the
status view. The names below are re-exported so ``replies.<name>`` reads the same wherever
a sentence is needed; the status view is :mod:`harness.channels.replies.status`.

No exception class name, internal id (task, request or question ids), hook point, operation
name, executor address or socket text is ever put in a sentence here: they stay in the logs
and the status view's detail. Callers choose which sentence fits (the workflow, the command
step, the agent loop, the command bodies, the bot); the words are here. Harness never
imports ``commands``, which alone knows whether a command is top level, so the spelling
travels in the context (``CommandInvokedContext.invocation``, set by the bot from the
registry). A test scans every other module for a sentence built outside this package
(``tests/unit/channels/test_reply_rule.py``). Text posted goes through ``channel.sent``,
whose redactor is the one scrub on the way out.
"""

from __future__ import annotations

from harness.channels.replies import (
    budget,
    commands,
    messages,
    notices,
    outcomes,
    people,
    problems,
    progress,
    questions,
    status,
    subtasks,
    tasks,
)
from harness.channels.replies.budget import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.commands import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.messages import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.notices import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.outcomes import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.people import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.problems import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.progress import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.questions import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.subtasks import *  # noqa: F403  # its __all__, as replies.<name>
from harness.channels.replies.tasks import *  # noqa: F403  # its __all__, as replies.<name>

__all__ = [
    *budget.__all__,
    *commands.__all__,
    *messages.__all__,
    *notices.__all__,
    *outcomes.__all__,
    *people.__all__,
    *problems.__all__,
    *progress.__all__,
    *questions.__all__,
    *subtasks.__all__,
    *tasks.__all__,
    "status",
]
