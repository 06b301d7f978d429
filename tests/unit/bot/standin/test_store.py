"""The stand-in's posts on disk: kept whole, bounded, and an unreadable file starts empty."""

from __future__ import annotations

import asyncio
import json

from bot.standin import SlackStandIn
from bot.standin.server import SAVE_DELAY_SECONDS
from bot.standin.store import FILE_NAME, Kept, PostStore


def test_posts_and_edits_survive_a_new_stand_in_on_the_same_file(tmp_path):
    store = PostStore(tmp_path / "data" / FILE_NAME)
    first = SlackStandIn("UBOT", store=store)
    posted = first._answer("chat.postMessage", {"channel": "C1", "text": "question?"})
    first._answer("chat.update", {"channel": "C1", "ts": posted["ts"], "text": "closed"})
    first._answer("reactions.add", {"channel": "C1", "timestamp": posted["ts"], "name": "eyes"})

    again = SlackStandIn("UBOT", store=store)
    assert again.calls == [("chat.postMessage", {"channel": "C1", "text": "question?"})]
    assert again.live.find("C1", posted["ts"])["text"] == "closed"
    later = again._answer("chat.postMessage", {"channel": "C1", "text": "next"})
    assert float(later["ts"]) > float(posted["ts"])  # ts keep growing across the restart


def test_the_file_keeps_the_last_posts_only(tmp_path):
    store = PostStore(tmp_path / FILE_NAME, kept=3)
    standin = SlackStandIn("UBOT", store=store)
    for i in range(5):
        standin._answer("chat.postMessage", {"channel": "C1", "text": f"post {i}"})
    kept = store.load()
    assert [p["args"]["text"] for p in kept.posts] == ["post 2", "post 3", "post 4"]
    assert [m["text"] for m in kept.messages] == ["post 2", "post 3", "post 4"]
    assert [p.name for p in tmp_path.iterdir()] == [FILE_NAME]  # no temporary file left


def test_an_unreadable_or_foreign_file_starts_empty(tmp_path):
    path = tmp_path / FILE_NAME
    path.write_text("{not json")
    assert PostStore(path).load() == Kept()
    path.write_text(json.dumps({"version": 99, "posts": [{"method": "chat.postMessage"}]}))
    assert PostStore(path).load() == Kept()
    assert SlackStandIn("UBOT", store=PostStore(path)).calls == []


async def test_a_burst_of_changes_is_saved_once_a_moment_later_and_flush_saves_at_once(tmp_path):
    store = PostStore(tmp_path / FILE_NAME)
    saves: list[int] = []
    save = store.save
    store.save = lambda kept: (saves.append(len(kept.posts)), save(kept))  # type: ignore[method-assign]
    standin = SlackStandIn("UBOT", store=store)
    posted = standin._answer("chat.postMessage", {"channel": "C1", "text": "working"})
    for n in range(20):  # a turn's progress, updated in place
        standin._answer("chat.update", {"channel": "C1", "ts": posted["ts"], "text": f"{n}"})
    assert saves == [] and not store.path.exists()  # the bot's loop is not held per change
    await asyncio.sleep(SAVE_DELAY_SECONDS * 2)
    assert saves == [1] and store.load().messages[0]["text"] == "19"

    standin._answer("chat.postMessage", {"channel": "C1", "text": "last words"})
    standin.flush()  # as the bot stops
    assert saves == [1, 2]
    assert [p["args"]["text"] for p in store.load().posts] == ["working", "last words"]
    await asyncio.sleep(SAVE_DELAY_SECONDS * 2)
    assert saves == [1, 2]  # nothing left to save
