"""Executors the configuration-file test wires into a real worker (issue 6).

Run as a script it is an MCP hook server over stdio whose ``persistence.write.pre``
tool rewrites ``secret-plan`` to ``forbidden-plan`` in the content written. Imported,
it offers ``make_body``, a factory for a local ``persistence.write.in`` body that
replaces the default one and records what it saw in a JSON-lines file.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.domain import Artefact
from harness.hooks.contexts import PersistenceWriteContext


def rewrite(ctx: PersistenceWriteContext) -> PersistenceWriteContext | None:
    if "secret-plan" not in ctx.content:
        return None
    return ctx.model_copy(update={"content": ctx.content.replace("secret-plan", "forbidden-plan")})


def make_body(*, record: str):
    """A ``persistence.write.in`` body that stores nothing and says where it would have."""
    log = Path(record)

    async def configured_write(ctx: PersistenceWriteContext) -> PersistenceWriteContext:
        with log.open("a") as out:
            out.write(json.dumps({"key": ctx.key, "content": ctx.content}) + "\n")
        return ctx.model_copy(update={"result": Artefact(key=ctx.key, content="local", version=7)})

    return configured_write


if __name__ == "__main__":
    from harness.hook_server import serve_from_command_line

    serve_from_command_line({"persistence.write.pre": rewrite}, name="config-test-rewriter")
