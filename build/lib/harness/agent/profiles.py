"""Named agents: instructions, model and tools under one name, from configuration.

A profile is data only (it travels in workflow inputs and Settings); what running
one means is the ``agent.invoked`` body in :mod:`harness.bodies.plan`.
"""

from __future__ import annotations

from harness.domain import Effort, Frozen


class AgentProfile(Frozen):
    """A named agent as configured.

    ``model`` empty means the task's model; ``tools`` empty means no tools (an agent
    is given tools deliberately, not by default); ``max_turns`` bounds its own loop.
    """

    instructions: str = ""
    model: str = ""
    effort: Effort | None = None
    tools: tuple[str, ...] = ()
    max_turns: int = 6
