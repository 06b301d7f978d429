"""The one reply rule: every sentence a person reads in Slack is worded in this package, as
functions of typed values (an :data:`~harness.domain.outcome.Outcome`, a status, names).

Split by concept: outcomes (refused, failed, retried), questions, a task's life, sub-tasks,
people and their roles (and the help), commands' replies, usage problems, policies' refusals
and asks, budgets, the bot's own notices, the progress message, how a message fits Slack,
and the status view. The names below are re-exported so ``replies.<name>`` reads the same wherever
a sentence is needed; the status view is :mod:`harness.replies.status`.

No exception class name, internal id (task, request or question ids), hook point, operation
name, executor address or socket text is ever put in a sentence here: they stay in the logs
and the status view's detail. Callers choose which sentence fits (the workflow, the command
step, the agent loop, the command bodies, the bot); the words are here. Harness never
imports ``commands``, which alone knows whether a command is top level, so the spelling
travels in the context (``CommandInvokedContext.invocation``, set by the bot from the
registry). The room is a leaf: it imports nothing of harness but :mod:`harness.domain` (an
import-linter contract), so every layer, the hook engine included, words through it;
:mod:`~harness.replies.neutral` (echoed text pings nobody) and :mod:`~harness.replies.umbrella`
(how a command is typed) are its own. A test scans every other module for a sentence built
outside this package (``tests/unit/replies/test_reply_rule.py``). Text posted goes through
``channel.sent``, whose redactor is the one scrub on the way out.
"""

from __future__ import annotations

from harness.replies import (
    budget,
    commands,
    messages,
    notices,
    outcomes,
    people,
    policies,
    problems,
    progress,
    questions,
    status,
    subtasks,
    tasks,
)
from harness.replies.budget import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.commands import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.messages import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.notices import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.outcomes import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.people import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.policies import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.problems import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.progress import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.questions import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.subtasks import *  # noqa: F403  # its __all__, as replies.<name>
from harness.replies.tasks import *  # noqa: F403  # its __all__, as replies.<name>

__all__ = [
    *budget.__all__,
    *commands.__all__,
    *messages.__all__,
    *notices.__all__,
    *outcomes.__all__,
    *people.__all__,
    *policies.__all__,
    *problems.__all__,
    *progress.__all__,
    *questions.__all__,
    *subtasks.__all__,
    *tasks.__all__,
    "status",
]
