"""The stand-in's posts on disk: kept whole, bounded, and an unreadable file starts empty."""

from __future__ import annotations

import asyncio
import json

from bot.standin import SlackStandIn
from bot.standin.server import SAVE_DELAY_SECONDS
from bot.standin.store import FILE_NAME, Kept, PostStore


class AnyTs(str):
    """Equal to any ``ts`` the stand-in gives (the time, with microseconds)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and len(other.split(".")[-1]) == 6

    __hash__ = str.__hash__


ANY_TS = AnyTs()


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


def lines(store: PostStore) -> list[str]:
    return store.path.read_text().splitlines()


async def test_a_later_burst_is_appended_as_lines_and_the_stop_writes_it_whole(tmp_path):
    store = PostStore(tmp_path / FILE_NAME)
    standin = SlackStandIn("UBOT", store=store)
    posted = standin._answer("chat.postMessage", {"channel": "C1", "text": "working"})
    await asyncio.sleep(SAVE_DELAY_SECONDS * 2)
    whole, inode = lines(store), store.path.stat().st_ino
    assert len(whole) == 1  # the first write is whole

    for n in range(20):  # a turn's progress, updated in place, then the answer
        standin._answer("chat.update", {"channel": "C1", "ts": posted["ts"], "text": f"{n}"})
    standin._answer("chat.postMessage", {"channel": "C1", "text": "done"})
    await asyncio.sleep(SAVE_DELAY_SECONDS * 2)
    assert store.path.stat().st_ino == inode  # appended to, not replaced
    assert lines(store)[0] == whole[0]
    assert [json.loads(line) for line in lines(store)[1:]] == [
        {"post": {"method": "chat.postMessage", "args": standin.calls[-1][1], "ts": ANY_TS}},
        {"message": standin.messages[0]},  # once, as it is now
        {"message": standin.messages[1]},
    ]
    kept = store.load()
    assert [p["args"]["text"] for p in kept.posts] == ["working", "done"]
    assert [(m["text"], m.get("edits")) for m in kept.messages] == [("19", 20), ("done", None)]

    standin.flush()  # as the bot stops
    assert len(lines(store)) == 1 and store.load() == kept
    assert json.loads(store.path.read_text())["posts"] == kept.posts  # one JSON object again
    assert [p.name for p in tmp_path.iterdir()] == [FILE_NAME]


def test_past_kept_appended_lines_the_file_is_written_whole_again(tmp_path):
    store = PostStore(tmp_path / FILE_NAME, kept=4)
    posts = [
        {"method": "chat.postMessage", "args": {"text": f"p{n}"}, "ts": f"{n}"} for n in range(6)
    ]
    messages = [{"channel": "C1", "ts": f"{n}", "text": f"p{n}"} for n in range(6)]
    store.save(Kept(posts=posts[:1], messages=messages[:1]))
    for n in range(1, 6):
        store.append(
            Kept(posts=posts[n : n + 1], messages=messages[n : n + 1]),
            lambda n=n: Kept(posts=posts[: n + 1], messages=messages[: n + 1]),
        )
        assert len(lines(store)) == [3, 5, 1, 3, 5][n - 1]  # 2 lines each, at most 4
        assert store.load() == Kept(posts=posts[: n + 1][-4:], messages=messages[: n + 1][-4:])


def test_a_cut_short_line_is_left_out_and_a_version_1_file_is_read(tmp_path):
    store = PostStore(tmp_path / FILE_NAME)
    post = {"method": "chat.postMessage", "args": {"channel": "C1", "text": "asked"}, "ts": "1.0"}
    message = {"channel": "C1", "ts": "1.0", "text": "asked"}
    store.path.write_text(json.dumps({"version": 1, "posts": [post], "messages": [message]}))
    assert store.load() == Kept(posts=[post], messages=[message])
    edited = {**message, "text": "closed"}
    with store.path.open("a") as out:
        out.write("\n" + json.dumps({"message": edited}) + '\n{"post": {"method": "chat.po')
    assert store.load() == Kept(posts=[post], messages=[edited])
