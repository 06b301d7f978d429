"""The agent loop: default bodies of its operations and the driver that sequences them.

Importing this package loads only pure modules (profiles, loop state, the driver),
so workflow code can import it; the bodies, which call models and tools, are in
:mod:`harness.agent.plugin` and its neighbours.
"""
