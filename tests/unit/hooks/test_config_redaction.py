"""The hooks file's ``[redaction]`` table: operators' own patterns and field names (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.config import Settings
from harness.domain import TaskRef, ToolCall
from harness.hooks import HookConfigError, load_hooks_config
from harness.hooks.config import load_redaction
from harness.hooks.contexts import ToolInvokedContext
from harness.plugins import build_manager
from harness.storage import open_database
from harness.storage.engine import database_url

TABLE = """
[redaction]
patterns = ["ACME-[0-9]{6}"]
fields = ["X-Acme-Session"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hooks.toml"
    path.write_text(text)
    return path


def problems(tmp_path: Path, text: str) -> str:
    with pytest.raises(HookConfigError) as caught:
        load_hooks_config(write(tmp_path, text), environ={})
    return str(caught.value)


async def test_the_workers_redactor_masks_what_the_table_names_before_executors_see_it(tmp_path):
    settings = Settings(_env_file=None, hooks_config=write(tmp_path, TABLE))  # type: ignore[call-arg]
    database = await open_database(database_url("", tmp_path / "w.sqlite3"))
    manager = build_manager(settings, database)
    seen: list[str] = []

    async def spy(ctx):
        seen.append(ctx.model_dump_json())

    manager.register("tool.invoked.pre", spy)
    arguments = {"note": "ticket ACME-123456 open", "x_acme_session": "s-1"}
    call = ToolCall(id="1", name="nope", arguments=arguments)
    try:
        await manager.run("tool.invoked", ToolInvokedContext(task=TaskRef(task_id="T"), call=call))
    finally:
        await manager.aclose()
        await database.aclose()
    assert seen and "ACME-123456" not in seen[0] and "s-1" not in seen[0]
    assert "ticket [REDACTED] open" in seen[0]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[redaction]\npatterns = ["ACME-("]', "is not a regular expression"),
        ('[redaction]\npatterns = ["x*"]', "matches the empty text"),
        ('[redaction]\npatterns = ["(?P<a>x)", "(?P<a>y)"]', "do not combine"),
        ('[redaction]\nfields = [" "]', "a field name is empty"),
        ('[redaction]\npattern = ["x"]', "pattern"),
    ],
    ids=["bad-regex", "empty-match", "group-clash", "empty-field", "typo"],
)
def test_a_bad_table_is_refused_at_start_naming_the_problem(tmp_path, text, says):
    text = problems(tmp_path, text)
    assert "redaction" in text and says in text


def test_the_table_is_read_without_resolving_executors_for_the_temporal_client(tmp_path):
    """A bot reads the table to mask what it sends; it need not import the worker's targets."""
    text = TABLE + '\n[[executor]]\nkind = "local"\npoints = ["tool.invoked.pre"]\n'
    text += 'target = "nowhere.at_all:gate"\n'
    section = load_redaction(write(tmp_path, text))
    assert section.redactor().redact_text("ticket ACME-123456") == "ticket [REDACTED]"
    with pytest.raises(HookConfigError, match="is not a regular expression"):
        load_redaction(write(tmp_path, '[redaction]\npatterns = ["ACME-("]'))
    with pytest.raises(HookConfigError, match="cannot read"):
        load_redaction(tmp_path / "missing.toml")
