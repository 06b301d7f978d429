"""The agent loop: the driver that sequences its operations, its state and prompts.

Importing this package loads only pure modules (profiles, loop state, the driver),
so workflow code can import it; the default bodies of its operations, which call
models and tools, are in :mod:`harness.bodies`.
"""
