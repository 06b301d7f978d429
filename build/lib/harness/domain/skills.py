"""A loaded skill as a value: its instructions and the tools it brings.

A plain frozen value; finding and loading skills is :mod:`harness.skills`, the hook
contexts :mod:`harness.hooks.contexts.skill`.
"""

from __future__ import annotations

from harness.domain.frozen import Frozen


class Skill(Frozen):
    """A loaded skill: its instructions and the tools it brings."""

    name: str
    instructions: str = ""
    tools: tuple[str, ...] = ()
