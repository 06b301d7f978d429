"""The start-up heap, kept out of the garbage collector's way once a process serves.

Importing the bot leaves ~140,000 objects the cyclic collector tracks (modules, classes,
functions, pydantic and protobuf schemas) that live as long as the process. A full
collection walks every one of them: 80-110 ms of CPU on the 2-core development machine
(120-150 ms of wall time, 0.3 s and more when the machine is loaded), during which the
event loop answers no ack; the bot ran three in a run of bench/slack_ack.py. Frozen
(:func:`gc.freeze`), they sit in the permanent generation, which no collection walks; what
a request allocates is collected as before. The worker does the same once it is built
(``serve(freeze_heap=True)``): under bench/load.py it ran a full collection of 100-190 ms
about every 180 messages.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect what start-up left as garbage, then freeze what remains; once a process serves.

    Call it when everything built at start is built (the app, the clients, the worker), not
    per request: what is frozen is never collected, so a cycle made garbage later would stay.

    Returns:
        How many objects are frozen now (this call's and any earlier call's).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
