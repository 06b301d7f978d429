"""Hot reload of the hooks file (issue 15, point 5): the manager's batch swap and HooksReload.

Remote executors talk to a real aiohttp JSON-RPC server counting its requests; local
executors and factories are functions of this module, named by the files the tests write.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from harness.hook_server import jsonrpc_app
from harness.hooks import (
    HookAbort,
    HookManager,
    HooksReload,
    HookTransportError,
    load_hooks_config,
    register_approvals,
)
from harness.hooks.contexts import ToolInvokedContext

ME = "tests.unit.hooks.test_reload"
SEEN: list[str] = []
GATE: dict[str, asyncio.Event] = {}
CLOSED: list[str] = []


async def old_tag(ctx):
    SEEN.append("old")


async def new_tag(ctx):
    SEEN.append("new")


async def gate(ctx):
    """Holds the operation in its pre chain until the test opens the gate."""
    SEEN.append("gate")
    entered, opened = GATE["entered"], GATE["open"]
    entered.set()
    await opened.wait()


class Closable:
    """A code plugin's executor holding a resource: closing it is recorded."""

    def __init__(self, label: str) -> None:
        self.label = label

    async def __call__(self, ctx):
        SEEN.append(self.label)

    async def aclose(self) -> None:
        CLOSED.append(self.label)


def closable(*, label: str) -> Closable:
    return Closable(label)


def exploding(**_: object):
    raise RuntimeError("the factory cannot build")


@pytest.fixture(autouse=True)
def _fresh_records():
    SEEN.clear()
    CLOSED.clear()
    GATE.update(entered=asyncio.Event(), open=asyncio.Event())
    yield


@pytest.fixture
async def manager() -> AsyncIterator[HookManager]:
    """A fresh manager, closed at the end as the worker closes its own (remote clients)."""
    manager = HookManager()
    yield manager
    await manager.aclose()


@pytest.fixture
async def remote() -> AsyncIterator[tuple[str, Counter[str]]]:
    """A real JSON-RPC server: ``/a`` and ``/b`` pass through and count their requests."""
    counts: Counter[str] = Counter()

    def counting(name: str):
        async def handler(ctx):
            counts[name] += 1
            return None

        return handler

    app = web.Application()
    app.add_subapp("/a", jsonrpc_app({"tool.invoked.post": counting("a")}))
    app.add_subapp("/b", jsonrpc_app({"tool.invoked.post": counting("b")}))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}", counts
    await runner.cleanup()


def local(name: str, target: str, point: str = "tool.invoked.pre", priority: int = 10) -> str:
    return (
        f'[[executor]]\nname = "{name}"\nkind = "local"\npoints = "{point}"\n'
        f'target = "{ME}:{target}"\npriority = {priority}\n\n'
    )


def remote_entry(name: str, url: str) -> str:
    return (
        f'[[executor]]\nname = "{name}"\nkind = "jsonrpc"\npoints = "tool.invoked.post"\n'
        f'url = "{url}"\n\n'
    )


def factory(name: str, label: str) -> str:
    return (
        f'[[executor]]\nname = "{name}"\nkind = "local"\npoints = "tool.invoked.post"\n'
        f'target = "{ME}:closable"\noptions = {{ label = "{label}" }}\n\n'
    )


def start(manager: HookManager, path: Path, text: str, **kwargs) -> HooksReload:
    """Apply ``text`` as the worker does at start, and the reload that follows it."""
    path.write_text(text)
    config = load_hooks_config(path)
    applied = config.apply(manager)
    return HooksReload(
        manager,
        path,
        config,
        applied,
        grace_seconds=kwargs.pop("grace", 5.0),
        worker="test-host pid 1",
        **kwargs,
    )


def chains(manager: HookManager) -> dict[str, tuple]:
    return {p: tuple(manager.registrations(p)) for p in ("tool.invoked.pre", "tool.invoked.post")}


def reloads(manager: HookManager) -> list:
    return [r for r in manager.audit.last(50) if r.kind == "reload"]


# -- HookManager.replace ------------------------------------------------------------------


async def test_an_operation_in_flight_across_a_swap_runs_entirely_on_its_old_chains(
    manager, tool_ctx
):
    [pre] = [manager.register("tool.invoked.pre", gate)]
    old_post = manager.register("tool.invoked.post", old_tag)
    running = asyncio.create_task(manager.run("tool.invoked", tool_ctx))
    await GATE["entered"].wait()  # the operation took its chains and waits in pre

    manager.replace([pre, old_post], [("tool.invoked.post", new_tag, 0, "normal")])
    GATE["open"].set()
    await running
    assert SEEN == ["gate", "old"]  # its post chain is the one it started with

    await manager.run("tool.invoked", tool_ctx)
    assert SEEN == ["gate", "old", "new"]  # the next one: no gate, the new post executor


async def test_a_replace_that_cannot_register_everything_changes_nothing(manager):
    kept = manager.register("tool.invoked.pre", old_tag)
    before = chains(manager)
    with pytest.raises(ValueError, match=r"validator cannot run at tool\.invoked\.in"):
        manager.replace(
            [kept],
            [
                ("tool.invoked.pre", new_tag, 0, "normal"),
                ("tool.invoked.in", new_tag, 0, "validator"),
            ],
        )
    assert chains(manager) == before
    manager.unregister(kept)  # still registered: the failed replace removed nothing


# -- HooksReload --------------------------------------------------------------------------


async def test_a_good_file_swaps_the_chains_and_the_audit_says_what_changed(
    manager, tool_ctx, tmp_path
):
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, local("tagger", "old_tag") + local("stays", "gate", priority=5))
    GATE["open"].set()
    path.write_text(
        local("tagger", "new_tag")
        + local("stays", "gate", priority=5)
        + local("extra", "old_tag", priority=20)
    )

    outcome = await reload.reload(trigger="SIGHUP")

    assert outcome.applied
    assert (outcome.added, outcome.changed, outcome.kept) == (("extra",), ("tagger",), ("stays",))
    await manager.run("tool.invoked", tool_ctx)
    assert SEEN == ["gate", "new", "old"]
    [record] = reloads(manager)
    assert (record.point, record.executor) == (str(path), "test-host pid 1")
    assert record.reason.startswith("applied (by SIGHUP): added extra; changed tagger; kept stays")


async def test_a_bad_file_keeps_the_chains_and_connections_and_the_audit_names_the_problem(
    manager, tool_ctx, tmp_path, remote
):
    url, counts = remote
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, local("tagger", "old_tag") + remote_entry("counter", f"{url}/a/"))
    before = chains(manager)
    path.write_text(
        local("tagger", "old_tag") + '[[executor]]\nname = "typo"\nkind = "local"\n'
        'points = "tool.invokd.pre"\ntarget = "m:f"\n'
    )

    outcome = await reload.reload(trigger="SIGHUP")

    assert not outcome.applied
    assert chains(manager) == before  # the same registrations, the same executor objects
    await manager.run("tool.invoked", tool_ctx)
    assert SEEN == ["old"] and counts["a"] == 1  # the remote's connection still works
    [record] = reloads(manager)
    assert "refused (by SIGHUP), the running chains are kept" in record.reason
    assert "line 8: executor[1] ('typo'): field 'points': 'tool.invokd.pre'" in record.reason


async def test_removed_remote_and_plugin_executors_close_only_after_operations_using_them_end(
    manager, tool_ctx, tmp_path, remote
):
    url, counts = remote
    path = tmp_path / "hooks.toml"
    reload = start(
        manager,
        path,
        local("gate", "gate")
        + remote_entry("counter", f"{url}/a/")
        + factory("plugin", "plugin-v1"),
    )
    [old_remote] = [
        r.executor for r in manager.registrations("tool.invoked.post") if r.name == "counter"
    ]
    running = asyncio.create_task(manager.run("tool.invoked", tool_ctx))
    await GATE["entered"].wait()
    path.write_text(local("gate", "gate") + remote_entry("counter-b", f"{url}/b/"))

    outcome = await reload.reload(trigger="SIGHUP")

    assert outcome.removed == ("counter", "plugin") and outcome.added == ("counter-b",)
    await asyncio.sleep(0.05)
    assert CLOSED == []  # the operation in flight still holds them
    GATE["open"].set()
    await running
    assert counts == {"a": 1} and "plugin-v1" in SEEN  # it ran its old post chain whole
    await asyncio.wait_for(_until(lambda: CLOSED == ["plugin-v1"]), 5)
    with pytest.raises(HookTransportError, match="closed"):
        await old_remote(tool_ctx)  # its HTTP client is closed now
    await manager.run("tool.invoked", tool_ctx)
    assert counts == {"a": 1, "b": 1}
    await reload.aclose()


async def test_an_executor_kept_through_reloads_waits_for_operations_of_every_earlier_file(
    manager, tool_ctx, tmp_path, remote
):
    url, counts = remote
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, local("gate", "gate") + remote_entry("counter", f"{url}/a/"))
    [old_remote] = [r.executor for r in manager.registrations("tool.invoked.post")]
    running = asyncio.create_task(manager.run("tool.invoked", tool_ctx))  # on the first file
    await GATE["entered"].wait()
    path.write_text(remote_entry("counter", f"{url}/a/"))  # the counter kept, the gate gone
    assert (await reload.reload(trigger="SIGHUP")).kept == ("counter",)
    path.write_text("")  # and now the counter goes too
    assert (await reload.reload(trigger="SIGHUP")).removed == ("counter",)
    await asyncio.sleep(0.05)
    GATE["open"].set()
    await running  # its post chain still reaches the counter: not closed under it
    assert counts == {"a": 1}
    await asyncio.wait_for(_until(lambda: not reload._retiring), 5)
    with pytest.raises(HookTransportError, match="closed"):
        await old_remote(tool_ctx)


async def test_an_operation_that_never_ends_gets_its_removed_executors_closed_after_the_grace(
    manager, tool_ctx, tmp_path
):
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, local("gate", "gate") + factory("plugin", "p1"), grace=0.2)
    running = asyncio.create_task(manager.run("tool.invoked", tool_ctx))
    await GATE["entered"].wait()
    path.write_text(local("gate", "gate"))
    await reload.reload(trigger="test")
    await asyncio.wait_for(_until(lambda: CLOSED == ["p1"]), 5)
    assert not running.done()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_unchanged_entries_keep_their_executors_and_connections(
    manager, tool_ctx, tmp_path, remote
):
    url, counts = remote
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, remote_entry("counter", f"{url}/a/") + factory("plugin", "p1"))
    before = {r.name: r.executor for r in manager.registrations("tool.invoked.post")}
    path.write_text(
        remote_entry("counter", f"{url}/a/") + factory("plugin", "p1") + local("tagger", "new_tag")
    )

    outcome = await reload.reload(trigger="SIGHUP")

    assert outcome.kept == ("counter", "plugin")
    after = {r.name: r.executor for r in manager.registrations("tool.invoked.post")}
    assert after == before  # the very same objects: nothing rebuilt, nothing to close
    await manager.run("tool.invoked", tool_ctx)
    await asyncio.sleep(0.05)
    assert counts == {"a": 1} and CLOSED == []
    await reload.aclose()


async def test_a_build_failure_rolls_back_and_closes_what_it_had_built(manager, tool_ctx, tmp_path):
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, local("tagger", "old_tag"))
    before = chains(manager)
    path.write_text(
        local("tagger", "old_tag")
        + factory("fresh", "fresh")
        + '[[executor]]\nname = "boom"\nkind = "local"\npoints = "tool.invoked.pre"\n'
        f'target = "{ME}:exploding"\n'
    )

    outcome = await reload.reload(trigger="SIGHUP")

    assert not outcome.applied
    assert outcome.problems == ("boom: cannot build: RuntimeError: the factory cannot build",)
    assert chains(manager) == before
    assert CLOSED == ["fresh"]  # built for the new file, closed with it
    await manager.run("tool.invoked", tool_ctx)
    assert SEEN == ["old"]
    assert "boom: cannot build" in reloads(manager)[-1].reason


async def test_policy_and_approval_rules_reload_and_retry_defaults_need_a_restart(
    manager, tool_ctx, tmp_path
):
    [policy, _] = register_approvals(manager)
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, "[retry]\nmax_attempts = 3\n", approvals=policy)
    await manager.run("tool.invoked", tool_ctx)
    path.write_text(
        '[retry]\nmax_attempts = 9\n\n[approvals]\ndefault = "strict"\n'
        '[[approvals.rules]]\ntool = "search"\nverdict = "ask"\n\n'
        '[[policy.rules]]\naction = "deny"\ntool = "shell"\nreason = "no shells"\n'
        "\n[chain]\nbudget_seconds = 7\n"
    )

    outcome = await reload.reload(trigger="SIGHUP")

    assert outcome.applied
    assert (outcome.added, outcome.changed) == (("[policy]",), ("[chain]", "[approvals]"))
    assert [repr(m) for m in manager.monitors("chain")] == ["<ChainBudget 7.0 s>"]
    assert outcome.restart == ("[retry]", "[approvals] default")
    with pytest.raises(HookAbort, match="search needs a person's approval") as asked:
        await manager.run("tool.invoked", tool_ctx)
    assert asked.value.ask
    shell = tool_ctx.model_copy(update={"call": tool_ctx.call.model_copy(update={"name": "shell"})})
    with pytest.raises(HookAbort, match=r"no shells \(policy rule 1\)"):
        await manager.run("tool.invoked", ToolInvokedContext.model_validate(shell.__dict__))
    assert "[retry], [approvals] default changed but needs a restart" in reloads(manager)[-1].reason


async def test_without_a_hooks_file_a_reload_is_refused_and_audited(manager):
    reload = HooksReload(manager, None, None, None, grace_seconds=1, worker="w")
    outcome = await reload.reload(trigger="SIGHUP")
    assert not outcome.applied and "no hooks file is configured" in reloads(manager)[0].reason


async def test_turning_executor_stats_on_needs_a_restart(manager, tmp_path):
    path = tmp_path / "hooks.toml"
    reload = start(manager, path, "[observability]\nexecutor_stats = false\n")
    path.write_text("[observability]\nexecutor_stats = true\n")
    outcome = await reload.reload(trigger="SIGHUP")
    assert outcome.applied and outcome.restart == ("[observability] executor_stats",)
    assert manager.monitors("executor") == ()  # the worker's database is needed: at start only


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)
