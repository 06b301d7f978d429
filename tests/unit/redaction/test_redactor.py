from __future__ import annotations

import json
import re
from typing import NamedTuple

import pydantic_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from harness.domain import ChannelMessage, FrozenDict, TaskRef, ToolCall, ToolResult
from harness.hooks import BUILTIN_BODY_PRIORITY, HookManager, Redactor
from harness.hooks.contexts import ChannelSentContext, ToolInvokedContext
from harness.redaction.patterns import is_json_safe

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


# Issue 9: redaction coverage.

NEW_FAMILIES = {
    "slack webhook": (
        "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdEFGHijklMNOPqrstUVWX",
        "https://hooks.slack.com/[REDACTED]",
    ),
    "slack response url": (
        "https://hooks.slack.com/commands/T0123ABCD/1234567890/abcDEF123",
        "https://hooks.slack.com/[REDACTED]",
    ),
    "slack workflow": (
        "https://hooks.slack.com/workflows/T0123ABCD/A0123/456/abcDEF",
        "https://hooks.slack.com/[REDACTED]",
    ),
    "slack trigger": (
        "https://hooks.slack.com/triggers/T0123ABCD/456/abcDEF",
        "https://hooks.slack.com/[REDACTED]",
    ),
    "basic credentials": ("Basic dXNlcjpwYXNz", "Basic [REDACTED]"),
    "url credentials": (
        "postgres://admin:hunter2@db.internal:5432/app",
        "postgres://admin:[REDACTED]@db.internal:5432/app",
    ),
    "url credentials no user": ("redis://:s3cr3t@cache:6379", "redis://:[REDACTED]@cache:6379"),
    "google api key": ("AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQrStUv", "[REDACTED]"),
    "google oauth": ("ya29.a0AfH6SMBx3ZJ-qrstuvwxyz0123", "[REDACTED]"),
    "stripe live": ("sk_live_51H8abcdefGHIJKL0123", "[REDACTED]"),
    "stripe test": ("sk_test_51H8abcdefGHIJKL0123", "[REDACTED]"),
    "stripe restricted live": ("rk_live_51H8abcdefGHIJKL0123", "[REDACTED]"),
    "stripe restricted test": ("rk_test_51H8abcdefGHIJKL0123", "[REDACTED]"),
    "stripe webhook": ("whsec_abcdefGHIJKL0123456789", "[REDACTED]"),
    **{
        f"gitlab {prefix}": (f"{prefix}-AbCdEf0123456789_-xyZ", "[REDACTED]")
        for prefix in "glpat glptt gldt glrt glcbt glimt glsoat glft gloas".split()
    },
}


@pytest.mark.parametrize(("secret", "masked"), NEW_FAMILIES.values(), ids=NEW_FAMILIES.keys())
def test_new_families_are_masked_in_text_and_through_the_fast_path(redactor, secret, masked):
    assert redactor.redact_text(f"use {secret} now") == f"use {masked} now"
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"note": f"use {secret}"}))
    assert redactor.redact(ctx).call.arguments["note"] == f"use {masked}"
    assert redactor.redact({"deep": [{"n": secret}]}) == {"deep": [{"n": masked}]}


@pytest.mark.parametrize(
    "text",
    [
        "Basic features are on",
        "the basic plan",
        "Basic auth is off",
        "mail me at someone@example.com",
        "https://example.com/users/@alice",
        "see https://example.com:8443/x?a=b",
        "ya29 is not a token",
        "sk_live_ alone",
    ],
)
def test_prose_near_the_new_families_is_left_alone(redactor, text):
    assert redactor.redact_text(text) is text
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"q": text}))
    assert redactor.redact(ctx) is ctx


def test_url_credentials_keep_scheme_user_and_host_readable(redactor):
    out = redactor.redact_text('clone "https://deploy:p@ss:w0rd@github.com/o/r.git" now')
    assert out == 'clone "https://deploy:[REDACTED]@github.com/o/r.git" now'
    # A user named like a key ("...-token:") is a keyed value too, which takes the host along.
    out = redactor.redact_text("https://x-access-token:ghs_tok@github.com/o/r.git")
    assert "ghs_tok" not in out and out.startswith("https://x-access-token:")


CONFIGURED = 'my "pass phrase" \\ with é ünïcode ✓'


def test_configured_secrets_are_masked_whatever_their_shape():
    redactor = Redactor(secrets=[CONFIGURED, "plain-looking-value"])
    assert redactor.redact_text(f"a {CONFIGURED} b") == "a [REDACTED] b"
    arguments = {"q": f"<{CONFIGURED}>", "r": "plain-looking-value"}
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments=arguments))
    out = redactor.redact(ctx)
    assert out.call.arguments == {"q": "<[REDACTED]>", "r": "[REDACTED]"}
    assert out == redactor._walk(ctx)
    redactor.add_secret("added later 42")
    assert redactor.redact({"k": ["x added later 42 y"]}) == {"k": ["x [REDACTED] y"]}


def test_configured_secrets_keep_the_fast_path():
    redactor = Redactor(secrets=[CONFIGURED, "with space and 'quotes'"])
    assert redactor._detect_json is not None
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"q": "paris"}))
    assert redactor.redact(ctx) is ctx


def test_a_configured_secret_holding_a_token_goes_whole():
    redactor = Redactor(secrets=[f"id {SECRETS['slack bot']} end"])
    assert redactor.redact_text(f"pre id {SECRETS['slack bot']} end post") == "pre [REDACTED] post"
    # ... and one inside a keyed value does not leave the rest of the value behind.
    redactor = Redactor(secrets=["inner"])
    assert redactor.redact_text("password=outerinnerouter") == "password=[REDACTED]"


def test_short_configured_secrets_are_ignored_silently(caplog):
    redactor = Redactor(secrets=["abc", ""])
    redactor.add_secret("xy")
    assert redactor.redact_text("abc xy") == "abc xy"
    assert caplog.records == []


def test_secret_used_as_a_mapping_key_is_masked():
    redactor = Redactor(secrets=["configured-key-value"])
    value = {SECRETS["github"]: 1, "configured-key-value": 2, "q": 3}
    out = redactor.redact(value)
    assert out == {"[REDACTED]": 1, "[REDACTED]#2": 2, "q": 3}
    assert out == redactor._walk(value)


def test_masked_keys_that_collide_keep_every_value(redactor):
    value = {SECRETS["github"]: 1, "[REDACTED]": 2, SECRETS["openai"]: 3, "[REDACTED]#2": 4}
    out = redactor.redact(value)
    assert sorted(out.values()) == [1, 2, 3, 4]
    assert out["[REDACTED]"] == 2 and out["[REDACTED]#2"] == 4  # unmasked keys keep their names
    assert set(out) == {"[REDACTED]", "[REDACTED]#2", "[REDACTED]#3", "[REDACTED]#4"}


@pytest.mark.parametrize(
    "text",
    [
        "\ttoken: abc123secret",
        "\x01password=hunter2xyz",
        "\nBearer abcdefgh12345",
        "\r\napi_key=k-42",
        '"secret": "s3cr3t"',
        "\\token=abc123",
        "\tBasic dXNlcjpwYXNz",
        "Basic\tdXNlcjpwYXNz",
    ],
    ids=["tab", "control", "newline", "crlf", "quote", "backslash", "tab-basic", "basic-tab"],
)
def test_fast_path_sees_credentials_right_after_json_escapes(redactor, text):
    value = {"a": text}
    out = redactor.redact(value)
    assert out == redactor._walk(value)
    assert out != value


def test_field_names_fold_ascii_case_only_in_both_paths():
    redactor = Redactor(fields=["my_ssn_id"])
    assert redactor.redact({"My-SSN_id": "1"}) == {"My-SSN_id": "[REDACTED]"}
    kelvin = {"to\u212aen": "abc"}  # KELVIN SIGN lower-cases to "k" in str, never in bytes
    assert redactor.redact(kelvin) == redactor._walk(kelvin)
    bare = Redactor(fields=["api_key"], defaults=False)
    assert bare.redact({"API-key": "k"}) == {"API-key": "[REDACTED]"}


def test_user_patterns_keep_their_flags_and_agree_with_the_walk():
    redactor = Redactor(patterns=[re.compile(r"acme-[0-9]+", re.IGNORECASE)])
    assert redactor.redact_text("id ACME-123") == "id [REDACTED]"
    unicode_digits = Redactor(patterns=[r"ACME-\d{3}"])
    value = {"a": "ACME-\u0663\u0663\u0663"}  # \d is Unicode in text, ASCII in bytes
    assert unicode_digits.redact(value) == unicode_digits._walk(value) == {"a": "[REDACTED]"}
    assert Redactor(patterns=[r"ACME-[0-9]{3}"])._detect_json is not None


class Tagged(dict):
    """A dict subclass, as contexts' FrozenDict is."""


class Pair(NamedTuple):
    left: str
    right: str


def test_rebuilt_containers_keep_their_types(redactor):
    secret = SECRETS["github"]
    value = {
        "tagged": Tagged(a=secret),
        "tuple": (secret, "x"),
        "pair": Pair(secret, "x"),
        "frozen": FrozenDict(b=secret),
        "set": frozenset({secret}),
    }
    out = redactor.redact(value)
    assert type(out) is dict
    assert type(out["tagged"]) is Tagged and out["tagged"] == {"a": "[REDACTED]"}
    assert out["tuple"] == ("[REDACTED]", "x") and type(out["tuple"]) is tuple
    assert out["pair"] == Pair("[REDACTED]", "x") and type(out["pair"]) is Pair
    assert type(out["frozen"]) is FrozenDict and out["frozen"] == {"b": "[REDACTED]"}
    assert out["set"] == frozenset({"[REDACTED]"})


def test_context_entities_stay_frozen_after_redaction(redactor):
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x"), entities={"note": SECRETS["jwt"]})
    out = redactor.redact(ctx)
    assert type(out.entities) is FrozenDict and out.entities == {"note": "[REDACTED]"}


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    effort: str = "medium"


def test_model_extras_are_masked_and_defaults_read_alike_in_both_paths():
    redactor = Redactor(secrets=["medi"])
    loose = Loose(note=SECRETS["github"])
    out = redactor.redact(loose)
    assert out.note == "[REDACTED]" and out.effort == "medium"
    plain = Loose()
    assert redactor.redact(plain) is plain and redactor._walk(plain) is plain


def test_a_keyed_value_that_swallows_the_next_key_leaves_nothing_behind(redactor):
    # Found by the property test: the first value runs over "\x01authorization=basic" up to
    # the blank, so the second keyed value starts inside the first match.
    text = "authorization=first00=\x01authorization=basic second0="
    out = redactor.redact_text(text)
    assert "first00" not in out and "second0" not in out


def test_short_basic_credentials_and_overlapping_secrets_are_masked_whole():
    redactor = Redactor(secrets=["abab"])
    assert redactor.redact_text("Basic OjA=") == "Basic [REDACTED]"  # ":0"
    assert redactor.redact_text("xababab") == "x[REDACTED]"


@pytest.mark.parametrize(
    ("pattern", "safe"),
    [
        (r"ACME-[0-9]{6}", True),
        (r"a\.b|c\-d", True),
        (r"(?P<id>ab)+ cd", True),
        (r"[a-z_-]{3,}", True),
        (r"ACME-\d{6}", False),  # \d is Unicode in text
        (r"\bword", False),
        (r"x(?=y)", False),
        (r"(?i)acme", False),
        (r"a.b", False),
        (r"[^a]", False),
        (r"[!-~]+", False),  # a range over '"' and '\'
        (r'say "x"', False),
        (r"back\\slash", False),
        (r"^start", False),
        ("tab\there", False),
    ],
)
def test_user_patterns_are_tested_over_json_only_when_provably_safe(pattern, safe):
    assert is_json_safe(pattern) is safe


_SAFE = ["ACME-[0-9]{2}", r"a\.b", "x y+", "[a-c]{2}[x-z]"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(_SAFE),
    st.text(alphabet=st.sampled_from('ACME-09abcxyz. \t\n"\\\x01é'), max_size=12),
)
def test_a_safe_pattern_finds_in_json_what_it_finds_in_text(pattern, text):
    if re.search(pattern, text):
        assert re.search(pattern.encode(), pydantic_core.to_json(text))
