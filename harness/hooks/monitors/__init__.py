"""Monitors: what watches operations run without being part of the chain loop (STYLE rule 4).

One module per concept: :mod:`.budget` (a time budget per chain), :mod:`.oplog` (a JSON
line per chain), :mod:`.otel` (a span per operation), :mod:`.metrics` (counters per
operation), all on the manager's one public seam, :meth:`HookManager.add_monitor`;
:mod:`.audit` (the record of every abort, refusal and dry-run verdict the manager keeps)
and :mod:`.policy` (the operator's rules, an ordinary executor). Nothing is imported here,
so the OpenTelemetry API loads only for a worker that traces.
"""
