"""The start-up heap, frozen out of the collector's way, its garbage collected first (issue 27)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from harness.heap import freeze_startup_heap


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the session collects as before


def test_what_lives_at_start_is_frozen_and_what_comes_after_is_collected_as_before():
    alive = Node()
    frozen = freeze_startup_heap()
    later = Node()

    assert frozen == gc.get_freeze_count() > 0
    tracked = gc.get_objects()
    assert not any(o is alive for o in tracked)  # no collection walks it again
    assert any(o is later for o in tracked)
    gone = weakref.ref(later)
    del later, tracked
    gc.collect()
    assert gone() is None


def test_start_ups_garbage_is_collected_not_frozen_for_good():
    garbage = Node()
    gone = weakref.ref(garbage)
    del garbage
    freeze_startup_heap()

    assert gone() is None
