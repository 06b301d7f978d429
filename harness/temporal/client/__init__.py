"""The client: :class:`HarnessClient`, the only harness API the bot uses to reach tasks.

It sends the workflows' names and inputs (:mod:`harness.temporal`,
:mod:`harness.temporal.models`) and maps Temporal's errors to
:mod:`harness.temporal.errors`; it imports no workflow, activity or worker code.
"""

from __future__ import annotations

from harness.temporal.client.harness_client import HarnessClient

__all__ = ["HarnessClient"]
