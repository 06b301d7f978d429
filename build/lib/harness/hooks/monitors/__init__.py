"""Monitors: what watches operations run without being part of the chain loop (STYLE rule 4).

One module per concept: :mod:`.budget` (a time budget per chain), :mod:`.oplog` (a JSON
line per chain), :mod:`.otel` (a span per operation), :mod:`.metrics` (counters per
operation), all on the manager's one public seam, :meth:`HookManager.add_monitor`, seen
through :class:`harness.hooks.monitor.Monitored` (so no monitor imports the manager);
and :mod:`.policy` (the operator's rules, an ordinary executor). The audit log the
manager itself keeps is :mod:`harness.hooks.audit`. Nothing is imported here, so the
OpenTelemetry API loads only for a worker that traces.
"""
