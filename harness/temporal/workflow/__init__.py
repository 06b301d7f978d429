"""Workflow code: the task and request workflows and the parts they are made of.

Everything here runs inside Temporal's workflow sandbox, deterministic, no I/O, no hooks:
operations are activities (:mod:`harness.temporal.activity`) started by name. Like
:mod:`harness.temporal`, this package's own module imports nothing, because the sandbox
imports it as the package of every workflow module, outside ``imports_passed_through``.
"""
