"""``GET /_local/posts``, over real HTTP as ``bot.say``, the testing kit and the bench read it.

``?after=N`` answers the posts after the first ``N``, as they are now (issue 27: a poller
that counts what it read gets only what is new, not every post JSON-encoded on each poll);
without it, every post, as before; a count that is not one is refused.
"""

from __future__ import annotations

import aiohttp
import pytest

from bot.standin import POSTS_PATH, served


@pytest.fixture
async def standin():
    async with served() as found:
        yield found


async def call(standin, method: str, args: dict) -> dict:
    async with aiohttp.ClientSession() as session:
        async with session.post(standin.url + method, json=args) as response:
            return await response.json()


async def posts(standin, query: str = "") -> tuple[int, object]:
    base = standin.url.split("/_local/", 1)[0]
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}{POSTS_PATH}{query}") as response:
            return response.status, await response.json()


async def test_after_n_answers_the_posts_after_the_first_n_as_they_are_now(standin):
    first = await call(standin, "chat.postMessage", {"channel": "C1", "text": "one"})
    await call(standin, "reactions.add", {"channel": "C1", "timestamp": first["ts"], "name": "x"})
    await call(standin, "chat.postEphemeral", {"channel": "C1", "user": "U1", "text": "two"})
    await call(standin, "assistant.threads.setStatus", {"channel_id": "C1", "thread_ts": "1"})
    third = await call(standin, "chat.postMessage", {"channel": "C2", "text": "three"})
    await call(standin, "chat.update", {"channel": "C2", "ts": third["ts"], "text": "3, edited"})
    await call(standin, "chat.startStream", {"channel": "C1", "markdown_text": "four"})

    status, every = await posts(standin)
    assert status == 200
    assert [p["text"] for p in every] == ["one", "two", "3, edited", "four"]
    assert every[2]["edits"] == 1 and every[3]["method"] == "chat.startStream"
    assert (await posts(standin, "?after=0"))[1] == every
    assert (await posts(standin, "?after=1"))[1] == every[1:]
    assert (await posts(standin, "?after=3"))[1] == every[3:]
    assert (await posts(standin, "?after=4"))[1] == []
    assert (await posts(standin, "?after=40"))[1] == []


async def test_a_poller_counting_what_it_read_sees_each_post_once_with_its_latest_text(standin):
    seen: list[str] = []
    for n in range(3):
        posted = await call(standin, "chat.postMessage", {"channel": "C1", "text": f"p{n}"})
        await call(standin, "chat.update", {"channel": "C1", "ts": posted["ts"], "text": f"e{n}"})
        _, new = await posts(standin, f"?after={len(seen)}")
        seen += [p["text"] for p in new]
    assert seen == ["e0", "e1", "e2"]


@pytest.mark.parametrize("after", ["-1", "x", "1.5", "", "²"])
async def test_after_must_be_a_count(standin, after):
    await call(standin, "chat.postMessage", {"channel": "C1", "text": "one"})
    status, answer = await posts(standin, f"?after={after}")
    assert status == 400
    assert answer == {"error": "after takes a number of posts (0 or more)"}
