"""The observer tier (issue 15, point 6): off the critical path, bounded, unable to change anything.

No timing: "does not delay" is an operation that completes while its observer is still
blocked on an :class:`asyncio.Event` the test holds.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from temporalio.runtime import MetricBuffer, Runtime, TelemetryConfig

from harness.domain import ToolResult
from harness.hooks import (
    HookAbort,
    HookConfigError,
    HookManager,
    count_observer_drops,
    current_operation,
    describe_chains,
    load_hooks_config,
)
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.observers import ObserverLimits, ObserverQueue

ME = "tests.unit.hooks.test_observers"
SECRET = "xoxb-123456789012-abcdefghijkl"


class Blocked:
    """An observer that records what it saw, then waits for the test to release it."""

    def __init__(self, name: str = "blocked") -> None:
        self.name = name
        self.seen: list[ToolInvokedContext] = []
        self.release = asyncio.Event()
        self.finished = 0
        self.cancelled = 0

    async def __call__(self, ctx: ToolInvokedContext) -> None:
        self.seen.append(ctx)
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.finished += 1


def body(content: str = "ok"):
    async def run(ctx):
        return ctx.model_copy(update={"result": ToolResult(content=content)})

    return run


def rewrite(q: str):
    async def run(ctx):
        return ctx.model_copy(update={"call": ctx.call.model_copy(update={"arguments": {"q": q}})})

    run.__qualname__ = f"rewrite_{q}"
    return run


def stats_of(manager: HookManager, name: str):
    [stats] = [s for s in manager.observers.stats() if s.executor.endswith(name)]
    return stats


async def test_an_observer_blocked_on_an_event_does_not_delay_the_operation(manager, tool_ctx):
    observer = Blocked()
    manager.register("tool.invoked.pre", rewrite("weather in Lyon"), priority=1)
    manager.register("tool.invoked.pre", observer, priority=2, mode="observer")
    manager.register("tool.invoked.pre", rewrite("weather in Nice"), priority=3)
    manager.register("tool.invoked.in", body())

    async with asyncio.timeout(5):  # were the chain to wait, it would wait for ever
        out = await manager.run("tool.invoked", tool_ctx)

    assert out.result.content == "ok" and out.call.arguments == {"q": "weather in Nice"}
    await asyncio.sleep(0)  # let the observation start: it is still blocked on the event
    assert manager.observers.running == 1 and observer.finished == 0
    # It saw the context at its place in the chain: after the first rewrite, before the second.
    assert [ctx.call.arguments["q"] for ctx in observer.seen] == ["weather in Lyon"]
    observer.release.set()
    assert await manager.observers.drain(timeout=5)
    assert observer.finished == 1
    stats = stats_of(manager, "blocked")
    assert (stats.point, stats.offered, stats.completed, stats.dropped) == (
        "tool.invoked.pre",
        1,
        1,
        0,
    )


async def test_an_observer_sees_the_redacted_context(tool_ctx):
    manager = HookManager()
    manager.redactor.add_secret(SECRET)
    observer = Blocked()
    observer.release.set()
    manager.register("tool.invoked.post", observer, mode="observer")
    leaky = tool_ctx.model_copy(
        update={"call": tool_ctx.call.model_copy(update={"arguments": {"q": f"token {SECRET}"}})}
    )
    await manager.run("tool.invoked", leaky)
    await manager.observers.drain(timeout=5)
    assert SECRET not in observer.seen[0].model_dump_json()


@pytest.mark.parametrize("does", ["replace", "veto", "crash"])
async def test_what_an_observer_returns_or_raises_never_reaches_the_operation(
    tool_ctx, caplog, does
):
    manager = HookManager()
    manager.redactor.add_secret(SECRET)

    async def meddler(ctx):
        if does == "replace":
            return ctx.model_copy(update={"result": ToolResult(content="observer's")})
        if does == "veto":
            raise HookAbort(f"no ({SECRET})", refusal=True)
        raise RuntimeError(f"observer bug with {SECRET}")

    manager.register("tool.invoked.pre", meddler, mode="observer")
    manager.register("tool.invoked.post", meddler, mode="observer")
    manager.register("tool.invoked.in", body("the body's"))
    with caplog.at_level(logging.DEBUG, logger="harness.hooks.observers"):
        out = await manager.run("tool.invoked", tool_ctx)
        assert await manager.observers.drain(timeout=5)

    assert out.result.content == "the body's"
    assert manager.aborts == []
    [pre, post] = manager.observers.stats()
    assert (pre.point, post.point) == ("tool.invoked.post", "tool.invoked.pre")
    counted = {"replace": (2, 0, 0), "veto": (0, 2, 0), "crash": (0, 0, 2)}[does]
    assert (
        pre.ignored_rewrites + post.ignored_rewrites,
        pre.ignored_vetoes + post.ignored_vetoes,
        pre.failures + post.failures,
    ) == counted
    ignored = [r for r in manager.audit.last(10) if r.kind == "observer_ignored"]
    if does == "replace":
        assert ignored == []
    else:
        assert len(ignored) == 2 and all(SECRET not in r.reason for r in ignored)
        assert ignored[0].reason.startswith("veto ignored" if does == "veto" else "failure ignored")
        assert ignored[0].correlation_id == tool_ctx.correlation_id
    assert SECRET not in caplog.text
    if does == "crash":
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 2  # one per observer, each rate-limited on its own
        assert "failure ignored: RuntimeError: observer bug with [REDACTED]" in (
            warnings[0].getMessage()
        )


async def test_a_full_queue_drops_counts_and_warns_once(manager, tool_ctx, caplog):
    manager.observers.configure(ObserverLimits(queue_size=2, concurrency=1))
    observer = Blocked("slow-sink")
    manager.register("tool.invoked.post", observer, mode="observer")
    drops: list[tuple[str, str]] = []
    undo = manager.observers.add_drop_listener(lambda point, name: drops.append((point, name)))

    with caplog.at_level(logging.WARNING, logger="harness.hooks.observers"):
        for _ in range(6):
            await manager.run("tool.invoked", tool_ctx)  # none of them waits for the observer

    assert (manager.observers.running, manager.observers.pending) == (1, 2)
    assert drops == [("tool.invoked.post", "slow-sink")] * 3
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "slow-sink" in warnings[0] and "queue is full" in warnings[0]
    undo()
    await manager.run("tool.invoked", tool_ctx)
    assert len(drops) == 3  # the listener is gone; the count goes on
    observer.release.set()
    assert await manager.observers.drain(timeout=5)
    stats = stats_of(manager, "slow-sink")
    assert (stats.offered, stats.dropped, stats.completed) == (7, 4, 3)


async def test_with_one_slot_observations_run_in_the_order_offered(manager, tool_ctx):
    manager.observers.configure(ObserverLimits(queue_size=10, concurrency=1))
    seen: list[str] = []

    async def note(ctx):
        await asyncio.sleep(0)
        seen.append(ctx.call.arguments["q"])

    manager.register("tool.invoked.pre", note, mode="observer")
    for q in ("a", "b", "c", "d"):
        ctx = tool_ctx.model_copy(
            update={"call": tool_ctx.call.model_copy(update={"arguments": {"q": q}})}
        )
        await manager.run("tool.invoked", ctx)
    assert await manager.observers.drain(timeout=5)
    assert seen == ["a", "b", "c", "d"]


async def test_concurrency_bounds_how_many_observations_run_at_once(manager, tool_ctx):
    manager.observers.configure(ObserverLimits(queue_size=10, concurrency=3))
    observer = Blocked()
    manager.register("tool.invoked.pre", observer, mode="observer")
    for _ in range(5):
        await manager.run("tool.invoked", tool_ctx)
    await asyncio.sleep(0)
    assert (manager.observers.running, manager.observers.pending, len(observer.seen)) == (3, 2, 3)
    observer.release.set()
    assert await manager.observers.drain(timeout=5)
    assert observer.finished == 5


async def test_an_observation_runs_in_the_context_of_the_operation_that_offered_it(
    manager, tool_ctx
):
    manager.observers.configure(ObserverLimits(concurrency=1))
    labels: list[str | None] = []

    async def label(ctx):
        await asyncio.sleep(0)
        running = current_operation()
        labels.append(running.correlation_id if running else None)

    manager.register("tool.invoked.pre", label, mode="observer")
    for corr in ("c-1", "c-2", "c-3"):  # c-2 and c-3 wait in the queue, then run in their own
        await manager.run("tool.invoked", tool_ctx.model_copy(update={"correlation_id": corr}))
    assert await manager.observers.drain(timeout=5)
    assert labels == ["c-1", "c-2", "c-3"]


async def test_aclose_lets_the_queue_drain_then_drops_what_comes_after(manager, tool_ctx):
    done: list[str] = []

    async def quick(ctx):
        await asyncio.sleep(0.01)
        done.append(ctx.correlation_id)

    manager.register("tool.invoked.post", quick, mode="observer")
    await manager.run("tool.invoked", tool_ctx)
    await manager.aclose()
    assert done == [tool_ctx.correlation_id]
    await manager.run("tool.invoked", tool_ctx)  # after shutdown: dropped, never run
    assert manager.observers.running == 0 and done == [tool_ctx.correlation_id]
    assert stats_of(manager, ".quick").dropped == 1


async def test_aclose_cancels_what_outlives_the_shutdown_deadline(manager, tool_ctx, caplog):
    manager.observers.configure(ObserverLimits(queue_size=5, concurrency=1, shutdown_seconds=0.05))
    observer = Blocked()
    manager.register("tool.invoked.pre", observer, mode="observer")
    for _ in range(3):
        await manager.run("tool.invoked", tool_ctx)
    with caplog.at_level(logging.WARNING, logger="harness.hooks.observers"):
        await manager.aclose()
    assert observer.cancelled == 1 and observer.finished == 0
    assert (manager.observers.running, manager.observers.pending) == (0, 0)
    assert stats_of(manager, "blocked").dropped == 3
    assert "1 cancelled and 2 never started" in caplog.text


async def test_abandon_does_not_reach_an_observer(manager, tool_ctx):
    abandoned: list[str] = []

    class Span:
        name = "span"

        async def __call__(self, ctx):
            return None

        def abandon(self, point, ctx, error):
            abandoned.append(point)

    async def failing(ctx):
        raise RuntimeError("body failed")

    manager.register("tool.invoked.pre", Span(), mode="observer")
    manager.register("tool.invoked.in", failing)
    with pytest.raises(RuntimeError):
        await manager.run("tool.invoked", tool_ctx)
    await manager.observers.drain(timeout=5)
    assert abandoned == []


def test_an_observer_cannot_sit_on_an_in_point(manager):
    async def watch(ctx):
        return None

    with pytest.raises(ValueError, match="observe the output at the post point"):
        manager.register("tool.invoked.in", watch, mode="observer")


def test_limits_out_of_range_are_refused():
    with pytest.raises(ValueError, match="out of range"):
        ObserverLimits(concurrency=0)
    assert ObserverQueue(HookManager().audit).limits == ObserverLimits(1000, 4, 5.0)


async def test_drops_are_counted_on_the_workers_meter(manager, tool_ctx):
    buffer = MetricBuffer(1000)
    runtime = Runtime(telemetry=TelemetryConfig(metrics=buffer))
    count_observer_drops(manager.observers, runtime.metric_meter)
    manager.observers.configure(ObserverLimits(queue_size=0, concurrency=1))
    observer = Blocked("sink")
    manager.register("tool.invoked.post", observer, mode="observer")
    for _ in range(3):
        await manager.run("tool.invoked", tool_ctx)
    updates = [u for u in buffer.retrieve_updates() if u.metric.name == "harness_observer_drops"]
    assert sum(int(u.value) for u in updates) == 2
    assert {(u.attributes["point"], u.attributes["executor"]) for u in updates} == {
        ("tool.invoked.post", "sink")
    }
    observer.release.set()
    await manager.observers.drain(timeout=5)


# --- the hooks file ------------------------------------------------------------------


async def seen(ctx):
    SEEN.append(ctx.correlation_id)


SEEN: list[str] = []


def test_the_hooks_file_declares_observers_and_sizes_their_queue(tmp_path, manager):
    path = tmp_path / "hooks.toml"
    path.write_text(f"""
[observers]
queue_size = 50
concurrency = 2
shutdown_seconds = 1.5

[[executor]]
name = "audit-feed"
kind = "local"
points = ["tool.invoked.pre", "tool.invoked.post"]
target = "{ME}:seen"
mode = "observer"
timeout = 2
""")
    applied = load_hooks_config(path, environ={}).apply(manager)
    assert manager.observers.limits == ObserverLimits(50, 2, 1.5)
    assert "tool.invoked.pre: 500 audit-feed (local, observer)" in describe_chains(manager)
    assert [r.mode for r in manager.registrations("tool.invoked.post")] == ["observer"]
    applied.remove()
    assert manager.observers.limits == ObserverLimits()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            f'[[executor]]\nkind = "local"\npoints = "tool.invoked.in"\ntarget = "{ME}:seen"\n'
            'mode = "observer"',
            "line 1: executor[0]: entry: an observer cannot run at an in point",
        ),
        ("[observers]\nconcurrency = 0", "field 'observers.concurrency'"),
        ("[observers]\nqueue_size = -1", "field 'observers.queue_size'"),
        ("[observers]\nqueue = 5", "field 'observers.queue': Extra inputs are not permitted"),
    ],
    ids=["observer-in", "no-concurrency", "negative-queue", "typo"],
)
def test_a_wrong_observer_configuration_is_refused_naming_the_field(tmp_path, text, expected):
    path = tmp_path / "hooks.toml"
    path.write_text(text + "\n")
    with pytest.raises(HookConfigError) as caught:
        load_hooks_config(path, environ={})
    assert expected in str(caught.value), str(caught.value)


async def test_an_observer_returning_an_unawaited_coroutine_is_closed_quietly(manager, tool_ctx):
    async def inner(ctx):
        return None

    async def forgot(ctx):
        return inner(ctx)  # a bug: the coroutine is returned, never awaited

    manager.register("tool.invoked.post", forgot, mode="observer")
    await manager.run("tool.invoked", tool_ctx)
    assert await manager.observers.drain(timeout=5)
    assert stats_of(manager, "forgot").ignored_rewrites == 1  # and no "never awaited" warning


async def test_a_hot_reload_resizes_the_queue_and_says_so(tmp_path, manager):
    from harness.hooks import HooksReload

    path = tmp_path / "hooks.toml"
    entry = (
        f'[[executor]]\nname = "feed"\nkind = "local"\npoints = "tool.invoked.post"\n'
        f'target = "{ME}:seen"\nmode = "observer"\n'
    )
    path.write_text("[observers]\nconcurrency = 2\n\n" + entry)
    config = load_hooks_config(path, environ={})
    reload = HooksReload(
        manager, path, config, config.apply(manager), grace_seconds=1, worker="test"
    )
    path.write_text("[observers]\nconcurrency = 3\n\n" + entry)
    outcome = await reload.reload(trigger="SIGHUP")
    assert outcome.applied and "[observers]" in outcome.changed and outcome.kept == ("feed",)
    assert manager.observers.limits.concurrency == 3
    path.write_text(entry)  # the section removed: back to the defaults
    assert (await reload.reload(trigger="SIGHUP")).applied
    assert manager.observers.limits == ObserverLimits()
    await reload.aclose()


EVENTS: list[str] = []
FEED_GATE: list[asyncio.Event] = []


class Feed:
    """An observer holding a resource (a factory's executor): what it saw and its close."""

    async def __call__(self, ctx):
        await FEED_GATE[0].wait()
        EVENTS.append("observed")

    async def aclose(self) -> None:
        EVENTS.append("closed")


def feed() -> Feed:
    return Feed()


async def test_settled_waits_for_what_was_accepted_up_to_a_mark(manager, tool_ctx):
    observer = Blocked()
    manager.register("tool.invoked.post", observer, mode="observer")
    manager.observers.configure(ObserverLimits(queue_size=5, concurrency=1))
    for _ in range(2):
        await manager.run("tool.invoked", tool_ctx)
    mark = manager.observers.mark()
    assert mark == 2 and not await manager.observers.settled(mark, timeout=0.05)
    observer.release.set()
    assert await manager.observers.settled(mark, timeout=5)


async def test_a_reload_closes_a_removed_observer_after_its_queued_observations(
    tmp_path, manager, tool_ctx
):
    from harness.hooks import HooksReload

    EVENTS.clear()
    FEED_GATE[:] = [asyncio.Event()]
    path = tmp_path / "hooks.toml"
    path.write_text(
        f'[observers]\nconcurrency = 1\n\n[[executor]]\nname = "feed"\n'
        f'kind = "local"\npoints = "tool.invoked.post"\ntarget = "{ME}:feed"\n'
        'mode = "observer"\n'
    )
    config = load_hooks_config(path, environ={})
    reload = HooksReload(
        manager, path, config, config.apply(manager), grace_seconds=10, worker="test"
    )
    for _ in range(3):
        await manager.run("tool.invoked", tool_ctx)  # one observation runs, two wait
    path.write_text("")
    outcome = await reload.reload(trigger="SIGHUP")
    assert outcome.applied and outcome.removed == ("feed",)
    await asyncio.sleep(0.05)
    assert EVENTS == []  # not closed under its own queued observations
    FEED_GATE[0].set()
    async with asyncio.timeout(5):
        while "closed" not in EVENTS:
            await asyncio.sleep(0.01)
    assert EVENTS == ["observed", "observed", "observed", "closed"]
    await reload.aclose()
