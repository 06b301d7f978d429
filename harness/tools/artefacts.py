"""``read_artefact`` and ``write_artefact``: the model's access to the task's artefact store.

Keys are confined to the calling task's namespace (``task/<task id>/artefacts/<name>``), so a model
cannot read or overwrite another task's artefacts by naming them. ``write_artefact``
asks for approval by default: writing is a side effect a person may want to see.
"""

from __future__ import annotations

import re
from typing import Any, Final, final

from harness.domain import ToolResult, ToolSpec
from harness.storage.artefacts import ArtefactStore
from harness.tools.base import object_schema, text_argument
from harness.tools.errors import ToolError

_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MAX_CONTENT: Final = 256 * 1024


def artefact_key(task_id: str, name: str, tool: str) -> str:
    """The store key of artefact ``name`` of task ``task_id``.

    Raises:
        ToolError: ``name`` is not a plain file-like name (no slashes, no ``..``).
    """
    if not _NAME.fullmatch(name) or ".." in name:
        raise ToolError(tool=tool, detail=f"artefact name {name!r}: use letters, digits, . _ -")
    return f"task/{task_id or 'unbound'}/artefacts/{name}"


@final
class ReadArtefactTool:
    """Reads the latest version of an artefact.

    Args:
        store: the artefact store.
    """

    requires_approval = False
    safe = True
    spec = ToolSpec(
        name="read_artefact",
        description="Read a stored artefact of this task by name.",
        parameters=object_schema({"name": "string"}),
    )

    def __init__(self, store: ArtefactStore) -> None:
        self._store = store

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        """Return the artefact's content, or an error result naming what is missing."""
        name = text_argument(self.spec.name, arguments, "name")
        found = await self._store.read(artefact_key(task_id, name, self.spec.name))
        if found is None:
            raise ToolError(tool=self.spec.name, detail=f"no artefact named {name!r}")
        return ToolResult(content=found.content)


@final
class WriteArtefactTool:
    """Stores a new version of an artefact.

    Args:
        store: the artefact store.
        requires_approval: ask a person before writing (default yes).
    """

    spec = ToolSpec(
        name="write_artefact",
        description="Store text as a named artefact of this task (a new version each time).",
        parameters=object_schema({"name": "string", "content": "string"}),
    )

    def __init__(self, store: ArtefactStore, *, requires_approval: bool = True) -> None:
        self._store = store
        self.requires_approval = requires_approval
        self.safe = False

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        """Write and report the version stored."""
        name = text_argument(self.spec.name, arguments, "name")
        content = text_argument(self.spec.name, arguments, "content")
        if len(content) > MAX_CONTENT:
            raise ToolError(tool=self.spec.name, detail=f"content over {MAX_CONTENT} characters")
        stored = await self._store.write(artefact_key(task_id, name, self.spec.name), content)
        return ToolResult(content=f"stored {name} version {stored.version}")
