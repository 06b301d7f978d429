"""Pure executors (issue 15, point 7): decided once per operation, replayed on its retries.

The executors come from a real hooks file and run through a real manager; decisions go to
the real SQL store on a SQLite file (the store's own contract, on both engines and across
two hosts, is tests/unit/storage/test_decisions.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aiohttp import web
from sqlalchemy import select

from harness.domain import TaskRef
from harness.hook_server import jsonrpc_app
from harness.hooks import (
    HookAbort,
    HookManager,
    PureExecutor,
    describe_chains,
    load_hooks_config,
)
from harness.hooks.__main__ import main
from harness.hooks.chain import IDENTITY_FIELDS
from harness.hooks.config.wrappers import ConfiguredExecutor
from harness.hooks.contexts import PersistenceWriteContext
from harness.hooks.pure import PER_ATTEMPT_FIELDS, decision_key, executor_identity
from harness.storage import database_url, open_database
from harness.storage.decisions import SqlDecisionStore
from harness.storage.schema import hook_decision
from tests.support.cli import run_here

ME = "tests.unit.hooks.test_pure"
CALLS: list[tuple[str, int]] = []
"""What :func:`decide` was asked: (content, attempt)."""
SECRET = "s3cret-token-value"


async def decide(ctx: PersistenceWriteContext) -> PersistenceWriteContext | None:
    """A pure policy: its verdict follows from the content alone."""
    CALLS.append((ctx.content, ctx.attempt))
    if ctx.content == "leak it":  # a policy quoting a secret it holds, in a veto and a rewrite
        raise HookAbort(f"the key {SECRET} is not yours", refusal=True)
    if ctx.content == "leak more":
        return ctx.model_copy(update={"content": f"sign with {SECRET}"})
    if ctx.content.startswith("veto"):
        raise HookAbort("no vetoes here", refusal=True)
    if ctx.content.startswith("ask"):
        raise HookAbort("ask the owner", ask=True, timeout_seconds=30)
    if ctx.content.startswith("flaky") and sum(c == ctx.content for c, _ in CALLS) == 1:
        raise ConnectionError("the policy's backend blinked")
    if ctx.content.startswith("rewrite"):
        return ctx.model_copy(update={"content": ctx.content.upper()})
    return None


@pytest.fixture(autouse=True)
def fresh_calls():
    CALLS.clear()


def context(content: str = "hello", *, attempt: int = 1, **fields) -> PersistenceWriteContext:
    base = {
        "task": TaskRef(task_id="task-1"),
        "correlation_id": "corr-1",
        "idempotency_key": "wf/run/1",
        "key": "task-1/transcript",
    }
    return PersistenceWriteContext(**{**base, **fields}, content=content, attempt=attempt)


def hooks_file(tmp_path: Path, extra: str = "", *, name: str = "policy") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f"""
[[executor]]
name = "{name}"
kind = "local"
points = "persistence.write.pre"
target = "{ME}:decide"
pure = true
{extra}
""")
    return path


@pytest.fixture
async def store(tmp_path):
    database = await open_database(database_url("", tmp_path / "decisions.sqlite3"))
    yield SqlDecisionStore(database)
    await database.aclose()


def configured(path: Path, store: SqlDecisionStore | None) -> HookManager:
    manager = HookManager()
    load_hooks_config(path).apply(manager, decisions=store)
    return manager


def test_the_key_leaves_out_only_what_differs_between_attempts():
    identity = executor_identity("policy", "persistence.write.pre", {"url": "http://a/"})
    first = decision_key(identity, context(attempt=1))
    assert PER_ATTEMPT_FIELDS < set(IDENTITY_FIELDS)
    assert decision_key(identity, context(attempt=3, lost_workers=2)) == first
    # Every other identity field keeps two operations apart, and so does what they carry.
    for change in (
        {"idempotency_key": "wf/run/2"},
        {"correlation_id": "corr-2"},
        {"task": TaskRef(task_id="task-2")},
        {"content": "hello!"},
    ):
        assert decision_key(identity, context(**change)) != first, change
    moved = executor_identity("policy", "persistence.write.pre", {"url": "http://b/"})
    renamed = executor_identity("other", "persistence.write.pre", {"url": "http://a/"})
    elsewhere = executor_identity("policy", "persistence.read.pre", {"url": "http://a/"})
    assert len({decision_key(i, context()) for i in (identity, moved, renamed, elsewhere)}) == 4
    assert len(first) == 64 and int(first, 16) >= 0  # a SHA-256 in hex


async def test_a_retry_reuses_the_pass_and_says_so(tmp_path, store):
    manager = configured(hooks_file(tmp_path), store)
    await manager.run("persistence.write", context(attempt=1))
    await manager.run("persistence.write", context(attempt=2))
    assert CALLS == [("hello", 1)]
    [reused] = [r for r in manager.audit.last() if r.kind == "reused_decision"]
    assert (reused.point, reused.executor, reused.task_id) == (
        "persistence.write.pre",
        "policy",
        "task-1",
    )
    assert reused.reason.startswith("pass recorded by an earlier attempt")
    [reg] = manager.registrations("persistence.write.pre")
    assert isinstance(reg.executor.inner, PureExecutor) and reg.executor.inner.reused == 1
    # Another operation (a new idempotency key) is decided afresh.
    await manager.run("persistence.write", context(attempt=1, idempotency_key="wf/run/2"))
    assert CALLS == [("hello", 1), ("hello", 1)]


async def test_a_reused_rewrite_is_revalidated_and_fits_the_new_attempt(tmp_path, store):
    manager = configured(hooks_file(tmp_path), store)
    first = await manager.run("persistence.write", context("rewrite me", attempt=1))
    again = await manager.run("persistence.write", context("rewrite me", attempt=2))
    assert CALLS == [("rewrite me", 1)]
    assert first.content == again.content == "REWRITE ME"
    # The chain's identity check passed: the replayed context is this attempt's.
    assert (again.attempt, type(again)) == (2, PersistenceWriteContext)


async def test_a_recorded_rewrite_that_no_longer_validates_is_decided_again(tmp_path, store):
    manager = configured(hooks_file(tmp_path), store)
    await manager.run("persistence.write", context("rewrite me"))
    async with store.database.transaction() as connection:
        [text] = (await connection.execute(select(hook_decision.c.decision))).scalars().all()
        broken = json.loads(text)
        broken["context"]["append"] = "not a boolean"
        await connection.execute(hook_decision.update().values(decision=json.dumps(broken)))
    out = await manager.run("persistence.write", context("rewrite me", attempt=2))
    assert CALLS == [("rewrite me", 1), ("rewrite me", 2)] and out.content == "REWRITE ME"


@pytest.mark.parametrize(
    ("content", "refusal", "ask", "timeout"),
    [("veto this", True, False, 0.0), ("ask this", True, True, 30.0)],
    ids=["veto", "ask"],
)
async def test_a_reused_abort_keeps_its_reason_and_shape(
    tmp_path, store, content, refusal, ask, timeout
):
    manager = configured(hooks_file(tmp_path), store)
    for attempt in (1, 2):
        with pytest.raises(HookAbort) as caught:
            await manager.run("persistence.write", context(content, attempt=attempt))
        abort = caught.value
        assert (abort.reason, abort.refusal, abort.ask, abort.timeout_seconds) == (
            "no vetoes here" if not ask else "ask the owner",
            refusal,
            ask,
            timeout,
        )
        assert (abort.point, abort.executor) == ("persistence.write.pre", "policy")
    assert CALLS == [(content, 1)]


async def test_an_exception_is_not_a_decision_the_retry_calls_again(tmp_path, store):
    manager = configured(hooks_file(tmp_path), store)
    with pytest.raises(ConnectionError):
        await manager.run("persistence.write", context("flaky", attempt=1))
    await manager.run("persistence.write", context("flaky", attempt=2))
    await manager.run("persistence.write", context("flaky", attempt=3))
    assert CALLS == [("flaky", 1), ("flaky", 2)]  # attempt 3 reused attempt 2's pass


async def test_an_ignored_failure_is_not_recorded_as_a_pass(tmp_path, store):
    manager = configured(hooks_file(tmp_path, 'on_failure = "ignore"'), store)
    await manager.run("persistence.write", context("flaky", attempt=1))
    await manager.run("persistence.write", context("flaky", attempt=2))
    assert CALLS == [("flaky", 1), ("flaky", 2)]
    assert [r.kind for r in manager.audit.last()] == ["ignored_failure"]


async def test_a_ttl_ends_the_reuse(tmp_path, store):
    now = [1000.0]
    store._clock = lambda: now[0]
    manager = configured(hooks_file(tmp_path, "pure_ttl_seconds = 5"), store)
    await manager.run("persistence.write", context(attempt=1))
    now[0] += 4.9
    await manager.run("persistence.write", context(attempt=2))
    now[0] += 0.2
    await manager.run("persistence.write", context(attempt=3))
    assert CALLS == [("hello", 1), ("hello", 3)]


async def test_a_changed_executor_is_not_fed_its_predecessors_decisions(tmp_path, store):
    calls: list[str] = []

    async def endpoint(ctx: PersistenceWriteContext):
        calls.append(ctx.content)

    servers, urls = [], []
    for _ in range(2):
        runner = web.AppRunner(jsonrpc_app({"persistence.write.pre": endpoint}))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        servers.append(runner)
        urls.append(f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/")
    try:
        for url, attempt in ((urls[0], 1), (urls[0], 2), (urls[1], 2)):
            path = tmp_path / "remote.toml"
            path.write_text(
                f'[[executor]]\nname = "remote"\nkind = "jsonrpc"\n'
                f'points = "persistence.write.pre"\nurl = "{url}"\npure = true\n'
            )
            manager = configured(path, store)
            try:
                await manager.run("persistence.write", context(attempt=attempt))
            finally:
                await manager.aclose()
        assert calls == ["hello", "hello"]  # the first URL once, then the new one once
    finally:
        for runner in servers:
            await runner.cleanup()


async def test_secrets_in_a_rewrite_or_a_reason_never_reach_the_database(tmp_path, store):
    manager = configured(hooks_file(tmp_path), store)
    manager.redactor.add_secret(SECRET)
    for attempt in (1, 2):
        with pytest.raises(HookAbort) as caught:
            await manager.run("persistence.write", context("leak it", attempt=attempt))
        assert SECRET not in str(caught.value) and "is not yours" in caught.value.reason
        out = await manager.run("persistence.write", context("leak more", attempt=attempt))
        assert SECRET not in out.content and out.content.startswith("sign with ")
    assert CALLS == [("leak it", 1), ("leak more", 1)]
    async with store.database.transaction() as connection:
        rows = (await connection.execute(select(hook_decision.c.decision))).scalars().all()
    assert len(rows) == 2 and not any(SECRET in row for row in rows)
    assert any("is not yours" in row for row in rows) and any("sign with" in row for row in rows)


async def test_only_pure_entries_are_wrapped_and_without_a_store_none_is(tmp_path, store):
    path = tmp_path / "both.toml"
    path.write_text(
        hooks_file(tmp_path).read_text()
        + f"""
[[executor]]
name = "plain"
kind = "local"
points = "persistence.write.pre"
target = "{ME}:decide"
"""
    )
    manager = configured(path, store)
    regs = manager.registrations("persistence.write.pre")
    assert [type(r.executor.inner).__name__ for r in regs] == ["PureExecutor", "function"]
    assert describe_chains(manager) == [
        "persistence.write.pre: 500 policy (local, normal, pure), 500 plain (local, normal)"
    ]
    bare = configured(path, None).registrations("persistence.write.pre")
    assert all(isinstance(r.executor, ConfiguredExecutor) for r in bare)
    assert not any(isinstance(r.executor.inner, PureExecutor) for r in bare)


def test_the_cli_listing_marks_pure_entries_through_their_mode(tmp_path, capsys):
    """docs/hooks/pure.md: ``python -m harness.hooks list`` marks a pure entry (issue 28)."""
    path = tmp_path / "listed.toml"
    path.write_text(
        hooks_file(tmp_path).read_text()
        + hooks_file(tmp_path, 'mode = "audit"\npriority = 600', name="audited").read_text()
        + f'''
[[executor]]
name = "plain"
kind = "local"
points = "persistence.write.pre"
target = "{ME}:decide"
'''
    )
    run = run_here(main, ["list", "--config", str(path)], capsys)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    at = lines.index("persistence.write.pre")
    assert [line.split() for line in lines[at + 1 : at + 4]] == [
        ["500", "policy", "local", "normal", "pure"],
        ["500", "plain", "local", "normal"],
        ["600", "audited", "local", "audit", "pure"],
    ]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("pure = false\npure_ttl_seconds = 10", "pure_ttl_seconds applies to pure executors only"),
        ("pure = true\npure_ttl_seconds = 0", "field 'pure_ttl_seconds': Input should be greater"),
        ("pure = true\npure_ttl_seconds = -3", "field 'pure_ttl_seconds': Input should be greater"),
        ('pure = "yes"', "field 'pure': Input should be a valid boolean"),
    ],
    ids=["ttl-without-pure", "zero-ttl", "negative-ttl", "not-a-boolean"],
)
def test_a_wrong_pure_setting_names_line_entry_and_field(tmp_path, extra, expected):
    path = tmp_path / "bad.toml"
    path.write_text(
        f'# pure\n[[executor]]\nname = "p"\nkind = "local"\n'
        f'points = "persistence.write.pre"\ntarget = "{ME}:decide"\n{extra}\n'
    )
    with pytest.raises(Exception) as caught:
        load_hooks_config(path)
    assert "line 2: executor[0] ('p')" in str(caught.value)
    assert expected in str(caught.value), str(caught.value)


def test_pure_contradicts_idempotent_false(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        '[[executor]]\nkind = "jsonrpc"\npoints = "persistence.write.pre"\n'
        'url = "http://h/"\npure = true\nidempotent = false\n'
    )
    with pytest.raises(Exception, match="pure = true and idempotent = false contradict"):
        load_hooks_config(path)
