"""Activity code: the hooked activities generated from the catalogue, their wrapper, retry bounds.

Activities run in the worker, outside the sandbox, and may do I/O; workflow code
(:mod:`harness.temporal.workflow`) names them and reads their results, never imports them.
The worker (:mod:`harness.temporal.worker`) registers them.
"""
