from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.hooks import BUILTIN_BODY_PRIORITY, HookManager, Redactor
from harness.hooks.contexts import (
    ChannelMessage,
    ChannelSentContext,
    TaskRef,
    ToolCall,
    ToolInvokedContext,
    ToolResult,
)

SECRETS = {
    "slack bot": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack user": "xoxp-1234567890-1234567890-abcdef",
    "slack app": "xapp-1-A0123456789-1234567890123-abcdef0123456789",
    "openai": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "openai legacy": "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    "anthropic": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "github": "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "github fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "aws access key": "AKIAIOSFODNN7EXAMPLE",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9Pl",
}


@pytest.fixture
def redactor() -> Redactor:
    return Redactor()


@pytest.mark.parametrize("secret", SECRETS.values(), ids=SECRETS.keys())
def test_default_patterns_mask_known_token_formats(redactor, secret):
    text = f"please use {secret} for this"
    assert redactor.redact_text(text) == "please use [REDACTED] for this"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]"),
        (
            'curl -H "Authorization: Basic dXNlcjpwYXNz"',
            'curl -H "Authorization: Basic [REDACTED]"',
        ),
        ("x-api-key: 12345", "x-api-key: [REDACTED]"),
        ("https://h/cb?token=abc123&page=2", "https://h/cb?token=[REDACTED]&page=2"),
        ("PASSWORD=hunter2", "PASSWORD=[REDACTED]"),
        ('{"api_key": "k-1"}', '{"api_key": "[REDACTED]"}'),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "aws_secret_access_key = [REDACTED]"),
    ],
)
def test_keyed_values_and_bearer_headers_are_masked(redactor, text, expected):
    assert redactor.redact_text(text) == expected


@pytest.mark.parametrize(
    "text", ["token_count=5", "max_tokens: 100", "the keyboard", "skip the task", "ordinary words"]
)
def test_harmless_text_is_left_alone(redactor, text):
    assert redactor.redact_text(text) == text


def test_redaction_is_idempotent(redactor):
    text = "Authorization: Bearer abcdefgh12345678 and xoxb-123456-abcdefgh"
    once = redactor.redact_text(text)
    assert redactor.redact_text(once) == once


def test_secrets_nested_three_levels_deep_in_models_dicts_lists_and_strings(redactor):
    ctx = ToolInvokedContext(
        task=TaskRef(task_id="T"),
        entities={"password": "hunter2"},
        call=ToolCall(
            id="1",
            name="http",
            arguments={
                "request": {"headers": [{"Authorization": "Bearer s3cr3t-t0ken-value"}]},
                "body": json.dumps({"inner": {"api_key": "k-42", "note": SECRETS["github"]}}),
            },
        ),
    )
    out = redactor.redact(ctx)
    dumped = out.model_dump_json()
    for leaked in ("hunter2", "s3cr3t-t0ken-value", "k-42", SECRETS["github"]):
        assert leaked not in dumped
    assert out.entities == {"password": "[REDACTED]"}
    assert out.call.arguments["request"]["headers"][0]["Authorization"] == "[REDACTED]"
    assert type(out) is ToolInvokedContext and out.task == ctx.task


def test_clean_values_come_back_as_the_same_objects(redactor):
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="search", arguments={"q": "paris"}))
    assert redactor.redact(ctx) is ctx
    dirty = ctx.model_copy(update={"server": SECRETS["slack bot"]})
    out = redactor.redact(dirty)
    assert out is not dirty and out.call is dirty.call


def test_users_add_patterns_and_named_fields():
    redactor = Redactor(patterns=[r"ACME-\d{6}"], fields=["ssn"])
    assert redactor.redact_text("id ACME-123456 ok") == "id [REDACTED] ok"
    assert redactor.redact({"SSN": "123-45-6789", "name": "x"}) == {
        "SSN": "[REDACTED]",
        "name": "x",
    }
    redactor.add_field("Session-Id")
    assert redactor.redact({"session_id": "abc"}) == {"session_id": "[REDACTED]"}


def test_user_pattern_with_whitespace_still_masks_inside_models():
    redactor = Redactor(patterns=[r"secret\s+word\s+\w+"])
    ctx = ToolInvokedContext(
        call=ToolCall(id="1", name="x", arguments={"a": "the secret\nword hello"})
    )
    assert redactor.redact(ctx).call.arguments["a"] == "the [REDACTED]"


def test_without_defaults_only_user_rules_apply():
    redactor = Redactor(patterns=[r"zzz"], defaults=False)
    assert (
        redactor.redact_text(f"{SECRETS['slack bot']} zzz") == f"{SECRETS['slack bot']} [REDACTED]"
    )


def test_bad_user_pattern_fails_at_construction():
    with pytest.raises(Exception, match=r"unterminated|missing"):
        Redactor(patterns=["(unclosed"])


async def test_executors_never_see_the_secret_in_the_input():
    manager = HookManager()
    seen: list[str] = []

    async def spy(ctx):
        seen.append(ctx.model_dump_json())

    for phase in ("pre", "in", "post"):
        manager.register(f"channel.sent.{phase}", spy)
    ctx = ChannelSentContext(
        message=ChannelMessage(
            channel="C",
            text=f"deploy with {SECRETS['openai']}",
            blocks=({"elements": [{"text": {"text": SECRETS["slack app"]}}]},),
        ),
    )
    await manager.run("channel.sent", ctx)
    assert len(seen) == 3
    assert all(SECRETS["openai"] not in s and SECRETS["slack app"] not in s for s in seen)


async def test_secrets_a_body_puts_in_the_output_are_masked_before_post_and_return():
    manager = HookManager()
    seen: list[str] = []

    async def leaky_body(ctx):
        deep = json.dumps({"a": {"b": {"c": f"Bearer {SECRETS['anthropic']}"}}})
        return ctx.model_copy(update={"result": ToolResult(content=deep)})

    async def post_spy(ctx):
        seen.append(ctx.result.content)

    manager.register("tool.invoked.in", leaky_body, priority=BUILTIN_BODY_PRIORITY)
    manager.register("tool.invoked.post", post_spy)
    out = await manager.run("tool.invoked", ToolInvokedContext(call=ToolCall(id="1", name="x")))
    assert SECRETS["anthropic"] not in out.result.content
    assert "[REDACTED]" in out.result.content
    assert SECRETS["anthropic"] not in seen[0]


# The fast path (one scan of the JSON text) must never let through what the full walk masks.
_leaves = st.one_of(
    st.text(max_size=20),
    st.sampled_from([*list(SECRETS.values()), "Bearer abcdefgh12345", "token=x", "hunter2"]),
    st.integers(),
    st.none(),
)
_keys = st.one_of(st.text(max_size=8), st.sampled_from(["password", "Api-Key", "q", "token"]))
_values = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_keys, children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_fast_path_agrees_with_the_full_walk(value):
    redactor = Redactor()
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"v": value}))
    assert redactor.redact(ctx) == redactor._walk(ctx)
    assert redactor.redact({"v": value}) == redactor._walk({"v": value})
