"""harness.http clients against real loopback servers: deadline, size cap, reuse, error kinds.

Both clients must behave the same, so every test runs on each (``ids`` name them).
"""

from __future__ import annotations

import asyncio
import pickle
import time

import pytest

from harness.errors import HarnessError
from harness.http import AiohttpClient, HttpClientError, HttpxClient

BODY = b'{"jsonrpc": "2.0", "id": 7, "method": "tool.invoked.pre", "params": {"context": {}}}'
HEADERS = {"content-type": "application/json"}


@pytest.fixture(params=[AiohttpClient, HttpxClient], ids=["aiohttp", "httpx"])
async def http(request):
    client = request.param()
    yield client
    await client.aclose()


async def post(http, url, *, timeout=2.0, max_bytes=1 << 20):
    return await http.post(url, body=BODY, headers=HEADERS, timeout=timeout, max_bytes=max_bytes)


async def test_post_returns_status_headers_and_whole_body(http, bad_server):
    resp = await post(http, bad_server.url("/echo-null"))
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("application/json")
    assert resp.headers["content-type"].startswith("application/json")  # case-insensitive
    assert resp.body == b'{"jsonrpc": "2.0", "id": 7, "result": null}'
    assert bad_server.bodies[-1] == BODY


async def test_sequential_calls_reuse_one_connection(http, bad_server):
    mark = len(bad_server.peers)
    for _ in range(20):
        await post(http, bad_server.url("/echo-null"))
    assert len(bad_server.peers) - mark == 20
    assert bad_server.connections_since(mark) == 1


async def test_concurrent_calls_open_at_most_one_connection_each_and_then_reuse(http, bad_server):
    mark = len(bad_server.peers)
    await asyncio.gather(*(post(http, bad_server.url("/echo-null")) for _ in range(32)))
    first_wave = bad_server.connections_since(mark)
    await asyncio.gather(*(post(http, bad_server.url("/echo-null")) for _ in range(32)))
    assert 1 <= first_wave <= 32
    assert bad_server.connections_since(mark) == first_wave  # the second wave opened none


async def test_hanging_server_times_out_within_the_deadline(http, bad_server):
    start = time.monotonic()
    with pytest.raises(HttpClientError) as info:
        await post(http, bad_server.url("/hang"), timeout=0.3)
    assert info.value.kind == "timeout"
    assert time.monotonic() - start < 0.3 + 1.0  # slack for a loaded machine; the server waits 30 s


async def test_dripping_server_cannot_stretch_the_total_deadline(http, bad_server):
    # Each byte arrives well inside any per-read timeout; only a total deadline stops it.
    start = time.monotonic()
    with pytest.raises(HttpClientError) as info:
        await post(http, bad_server.url("/drip"), timeout=0.4)
    assert info.value.kind == "timeout"
    assert time.monotonic() - start < 0.4 + 1.0  # the drip alone would take 10 s


async def test_server_closing_mid_body_is_kind_closed(http, bad_server):
    with pytest.raises(HttpClientError) as info:
        await post(http, bad_server.url("/close-mid-body"))
    assert info.value.kind == "closed"


async def test_connection_reset_is_kind_closed(http, bad_server):
    with pytest.raises(HttpClientError) as info:
        await post(http, bad_server.url("/reset"))
    assert info.value.kind == "closed"


async def test_connection_refused_is_kind_connect(http, closed_port_url):
    with pytest.raises(HttpClientError) as info:
        await post(http, closed_port_url)
    assert info.value.kind == "connect"


@pytest.mark.parametrize("path", ["/oversize", "/oversize-chunked"], ids=["length", "chunked"])
async def test_reply_over_the_cap_is_kind_too_large(http, bad_server, path):
    with pytest.raises(HttpClientError) as info:
        await post(http, bad_server.url(path), max_bytes=1 << 20)
    assert info.value.kind == "too_large"
    assert "1048576-byte cap" in str(info.value)


async def test_client_still_works_after_a_failed_call(http, bad_server):
    with pytest.raises(HttpClientError):
        await post(http, bad_server.url("/close-mid-body"))
    assert (await post(http, bad_server.url("/echo-null"))).status == 200


async def test_library_exception_is_kept_as_the_cause_only(http, closed_port_url):
    with pytest.raises(HttpClientError) as info:
        await post(http, closed_port_url)
    assert isinstance(info.value, HarnessError)
    assert info.value.__cause__ is not None
    assert info.value.url == closed_port_url


async def test_closed_client_refuses_calls(bad_server):
    for client in (AiohttpClient(), HttpxClient()):
        await post(client, bad_server.url("/echo-null"))
        await client.aclose()
        with pytest.raises(HttpClientError) as info:
            await post(client, bad_server.url("/echo-null"))
        assert info.value.kind == "closed"


def test_http_client_error_survives_pickling_and_rejects_unknown_kinds():
    error = HttpClientError(kind="too_large", url="http://h/x", detail="too big")
    again = pickle.loads(pickle.dumps(error))
    assert (again.kind, again.url, again.detail, str(again)) == (
        "too_large",
        "http://h/x",
        "too big",
        "too_large: too big",
    )
    with pytest.raises(ValueError, match="unknown HttpClientError kind"):
        HttpClientError(kind="slow", url="http://h/x", detail="")  # type: ignore[arg-type]
