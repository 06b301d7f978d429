"""Cost of dispatching one operation, side by side with pluggy in the same run.

For N pass-through executors on each phase (N = 0, 1, 10) this times one
``HookManager.run`` (pre, in, post: 3N executors, plus redaction of the input) and
pluggy calling 3N no-op hookimpls with the same context. Both are timed in
interleaved rounds and the best round of each is kept, so a noisy neighbour moves
both figures alike. The last line is a JSON object; ``ratio`` is ours / pluggy at N=10.

Ours runs twice. ``same``: one context object every call, as before. ``fresh``: a context
decoded from its own JSON payload per call, as a Temporal activity gets it, and each with
other text in it (the call id and query), so neither a memory of objects nor one of contents
can answer for it: the cost every real dispatch pays. Judge a change by ``fresh``; a gain
``same`` shows alone is a memory of the bench's one object (issue 27).

``--watch stats`` times it with per-executor stats installed (kept in memory, as between two
flushes), ``--watch tracing`` with operation and decision spans (an SDK provider exporting
nowhere): what watching every executor call costs; nothing is installed by default.

Run: ``.venv/bin/python bench/dispatch.py [--rounds 7] [--calls 20000] [--watch stats]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import pluggy

from harness.domain import TaskRef, ToolCall
from harness.hooks import HookManager
from harness.hooks.contexts import ToolInvokedContext

hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")


class Spec:
    @hookspec
    def tool_invoked(self, ctx):
        """One hook taking the same context."""


def make_pluggy(impls: int) -> pluggy.PluginManager:
    pm = pluggy.PluginManager("bench")
    pm.add_hookspecs(Spec)
    for i in range(impls):

        class Plugin:
            @hookimpl
            def tool_invoked(self, ctx):
                return None

        pm.register(Plugin(), name=f"p{i}")
    return pm


def make_manager(per_phase: int, watch: str = "none") -> HookManager:
    manager = HookManager()
    if watch == "stats":
        from harness.hooks import register_executor_stats

        register_executor_stats(manager, None)
    elif watch == "tracing":
        from opentelemetry.sdk.trace import TracerProvider

        from harness.hooks import register_tracing

        register_tracing(manager, TracerProvider())

    async def passthrough(ctx):
        return None

    for phase in ("pre", "in", "post"):
        for _ in range(per_phase):
            manager.register(f"tool.invoked.{phase}", passthrough)
    return manager


CTX = ToolInvokedContext(
    task=TaskRef(task_id="slack-T1-C1-1712345678.000100", team="T1", channel="C1"),
    correlation_id="b7c4a1d2e3f4",
    idempotency_key="slack-T1-C1-1712345678.000100:7",
    call=ToolCall(id="call_01", name="web_search", arguments={"query": "weather in Paris"}),
)


def fresh_contexts(calls: int) -> list[ToolInvokedContext]:
    """``calls`` contexts like :data:`CTX`, each decoded from its own payload, no two alike."""
    payload = CTX.model_dump_json()
    return [
        ToolInvokedContext.model_validate_json(
            payload.replace("call_01", f"call_{i:06d}").replace("Paris", f"Paris {i}")
        )
        for i in range(calls)
    ]


async def time_ours(manager: HookManager, contexts: list[ToolInvokedContext]) -> float:
    run = manager.run
    start = time.perf_counter()
    for ctx in contexts:
        await run("tool.invoked", ctx)
    return (time.perf_counter() - start) / len(contexts)


def time_pluggy(pm: pluggy.PluginManager, contexts: list[ToolInvokedContext]) -> float:
    hook = pm.hook.tool_invoked
    start = time.perf_counter()
    for ctx in contexts:
        hook(ctx=ctx)
    return (time.perf_counter() - start) / len(contexts)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--watch", choices=("none", "stats", "tracing"), default="none")
    args = parser.parse_args()

    figures: dict[str, dict[str, float]] = {}
    fresh_figures: dict[str, dict[str, float]] = {}
    same, fresh = [CTX] * args.calls, fresh_contexts(args.calls)
    print(
        f"{'N per phase':>12} {'ours (us)':>10} {'pluggy 3N (us)':>15} {'ratio':>6}"
        f" {'ours fresh (us)':>16} {'ratio':>6}"
    )
    for n in (0, 1, 10):
        manager, pm = make_manager(n, args.watch), make_pluggy(3 * n)
        await time_ours(manager, same[:1000])
        await time_ours(manager, fresh[:1000])
        time_pluggy(pm, same[:1000])
        ours, ours_fresh, base = [], [], []
        for _ in range(args.rounds):
            ours.append(await time_ours(manager, same))
            ours_fresh.append(await time_ours(manager, fresh))
            base.append(time_pluggy(pm, same))
        best_ours, best_fresh, best_base = (min(t) * 1e6 for t in (ours, ours_fresh, base))
        ratio, fresh_ratio = best_ours / best_base, best_fresh / best_base
        figures[f"n{n}"] = {
            "ours_us": round(best_ours, 3),
            "pluggy_us": round(best_base, 3),
            "ratio": round(ratio, 3),
        }
        fresh_figures[f"n{n}"] = {"ours_us": round(best_fresh, 3), "ratio": round(fresh_ratio, 3)}
        print(
            f"{n:>12} {best_ours:>10.2f} {best_base:>15.2f} {ratio:>6.2f}"
            f" {best_fresh:>16.2f} {fresh_ratio:>6.2f}"
        )
    watched = {} if args.watch == "none" else {"watch": args.watch}
    line = {"bench": "dispatch", **watched, **figures, "fresh": fresh_figures}
    print(json.dumps({**line, "ratio": figures["n10"]["ratio"]}))


if __name__ == "__main__":
    asyncio.run(main())
