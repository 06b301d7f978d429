"""The Standard Webhooks scheme itself (issue 15, point 3): vectors, verdicts, rotation, secrets."""

from __future__ import annotations

import base64
import hashlib
import hmac
import pickle
import subprocess

import pytest

from harness.hooks.remote.signing import (
    DEFAULT_TOLERANCE,
    SignatureError,
    Signer,
    Verifier,
    decode_secret,
    message_id,
    sign,
)

# The vector of the spec's reference libraries (standard-webhooks, libraries/*/tests).
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TS = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

# The example of docs/hooks/signing.md: a third party tests their verifier against it.
DOC_SECRET = "whsec_dGlueS1oYXJuZXNzLWV4YW1wbGUtc2lnbmluZy1rZXk="
DOC_ID = "msg_Jr8bZB0bT5a3Yl8C2Gg1xXwE"
DOC_TS = 1767225600
DOC_BODY = (
    b'{"jsonrpc":"2.0","id":1,"method":"tool.invoked.pre","params":{"context":{"attempt":1}}}'
)
DOC_SIGNATURE = "v1,RAXPpIkWS/XA86Jb3BJmCwRy1D5WrcuiITCm9tHV03M="

OLD = "whsec_" + base64.b64encode(b"o" * 32).decode()
NEW = "whsec_" + base64.b64encode(b"n" * 32).decode()


def problem(verifier: Verifier, headers: dict[str, str], body: bytes, now: float) -> str:
    with pytest.raises(SignatureError) as caught:
        verifier.verify(headers, body, now=now)
    return caught.value.problem


def test_the_spec_vector_signs_and_verifies_with_or_without_the_prefix():
    headers = sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY)
    assert headers == {
        "webhook-id": SPEC_ID,
        "webhook-timestamp": str(SPEC_TS),
        "webhook-signature": SPEC_SIGNATURE,
    }
    for secret in (SPEC_SECRET, SPEC_SECRET.removeprefix("whsec_")):
        assert Verifier([secret]).verify(headers, SPEC_BODY, now=SPEC_TS) == SPEC_ID


def test_the_documented_example_is_what_we_send():
    assert sign(DOC_SECRET, DOC_ID, DOC_TS, DOC_BODY)["webhook-signature"] == DOC_SIGNATURE
    # The same by hand, as the guide spells it out for any language.
    key = base64.b64decode(DOC_SECRET.removeprefix("whsec_"))
    mac = hmac.new(key, f"{DOC_ID}.{DOC_TS}.".encode() + DOC_BODY, hashlib.sha256).digest()
    assert "v1," + base64.b64encode(mac).decode() == DOC_SIGNATURE


def test_another_language_verifies_our_signature():
    # Node's standard library (on every machine of the project), as a third party would
    # verify: no code shared with ours.
    script = """
const c = require('crypto');
const [secret, id, ts, body, header] = process.argv.slice(1);
const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const mac = c.createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
const ok = header.split(' ').some(s => { const [v, b] = s.split(',');
  const g = Buffer.from(b, 'base64'); return v === 'v1' && g.length === mac.length
  && c.timingSafeEqual(g, mac); });
process.stdout.write(ok ? 'valid' : 'invalid');
"""
    headers = Signer([NEW, OLD]).headers("msg_x", DOC_BODY, now=DOC_TS)
    for secret, expected in ((OLD, "valid"), (NEW, "valid"), (DOC_SECRET, "invalid")):
        out = subprocess.run(
            [
                "node",
                "-e",
                script,
                secret,
                "msg_x",
                str(DOC_TS),
                DOC_BODY.decode(),
                headers["webhook-signature"],
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
        assert out == expected


def test_a_changed_body_or_another_secret_is_a_mismatch():
    headers = sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY)
    assert problem(Verifier([SPEC_SECRET]), headers, SPEC_BODY + b" ", SPEC_TS) == "mismatch"
    assert problem(Verifier([OLD]), headers, SPEC_BODY, SPEC_TS) == "mismatch"
    # The id and timestamp are signed too.
    moved = {**headers, "webhook-id": "msg_other"}
    assert problem(Verifier([SPEC_SECRET]), moved, SPEC_BODY, SPEC_TS) == "mismatch"
    later = {**headers, "webhook-timestamp": str(SPEC_TS + 1)}
    assert problem(Verifier([SPEC_SECRET]), later, SPEC_BODY, SPEC_TS) == "mismatch"


def test_the_timestamp_must_be_within_the_tolerance_either_way():
    headers = sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY)
    verifier = Verifier([SPEC_SECRET])
    assert DEFAULT_TOLERANCE == 300
    assert verifier.verify(headers, SPEC_BODY, now=SPEC_TS + 300) == SPEC_ID
    assert verifier.verify(headers, SPEC_BODY, now=SPEC_TS - 300) == SPEC_ID
    assert problem(verifier, headers, SPEC_BODY, SPEC_TS + 301) == "stale"
    assert problem(verifier, headers, SPEC_BODY, SPEC_TS - 301) == "future"
    tight = Verifier([SPEC_SECRET], tolerance=10)
    assert problem(tight, headers, SPEC_BODY, SPEC_TS + 11) == "stale"
    with pytest.raises(SignatureError, match=r"stale: webhook-timestamp is 11s old; the tol"):
        tight.verify(headers, SPEC_BODY, now=SPEC_TS + 11)


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_a_missing_header_is_unsigned(missing):
    headers = sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY)
    del headers[missing]
    with pytest.raises(SignatureError, match=f"unsigned: missing header {missing}"):
        Verifier([SPEC_SECRET]).verify(headers, SPEC_BODY, now=SPEC_TS)


def test_headers_are_matched_in_any_case():
    headers = {k.title(): v for k, v in sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY).items()}
    assert Verifier([SPEC_SECRET]).verify(headers, SPEC_BODY, now=SPEC_TS) == SPEC_ID


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"webhook-timestamp": "hello"}, "malformed"),
        ({"webhook-timestamp": "1614265330.5"}, "malformed"),
        ({"webhook-timestamp": "-1614265330"}, "malformed"),
        ({"webhook-timestamp": "1" * 40}, "malformed"),
        ({"webhook-id": "msg.with.dots"}, "malformed"),
        ({"webhook-id": "x" * 300}, "malformed"),
        ({"webhook-signature": "g0hM9SsE+OTPJTGt"}, "malformed"),
        ({"webhook-signature": "v1,not base64!"}, "malformed"),
        ({"webhook-signature": "v1," + "A" * 5000}, "malformed"),
        ({"webhook-signature": "v1a,hnO3f9T8Ytu9HwrXslvuml=="}, "unsigned"),
        ({"webhook-signature": "   "}, "unsigned"),
        ({"webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="}, "mismatch"),
    ],
    ids=[
        "word-timestamp",
        "fractional",
        "negative",
        "huge",
        "dotted-id",
        "long-id",
        "no-version",
        "not-base64",
        "huge-header",
        "only-v1a",
        "blank",
        "wrong-mac",
    ],
)
def test_hostile_headers_get_a_typed_verdict(change, expected):
    headers = {**sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY), **change}
    assert problem(Verifier([SPEC_SECRET]), headers, SPEC_BODY, SPEC_TS) == expected


def test_one_good_signature_among_others_of_any_version_verifies():
    good = sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY)
    other = "Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    good["webhook-signature"] = f"v1,{other} v2,{other} {good['webhook-signature']} v1,{other}"
    assert Verifier([SPEC_SECRET]).verify(good, SPEC_BODY, now=SPEC_TS) == SPEC_ID


@pytest.mark.parametrize(
    ("signs_with", "knows", "ok"),
    [
        ([NEW, OLD], [OLD], True),  # the client rotated first; the server still has the old
        ([NEW, OLD], [NEW], True),
        ([NEW], [NEW, OLD], True),  # the server rotated first: it accepts either
        ([OLD], [NEW, OLD], True),
        ([NEW], [OLD], False),  # rotated on one side only, and the old key dropped
    ],
    ids=[
        "client-first-old",
        "client-first-new",
        "server-first-new",
        "server-first-old",
        "dropped-too-early",
    ],
)
def test_rotation(signs_with, knows, ok):
    headers = Signer(signs_with).headers(SPEC_ID, SPEC_BODY, now=SPEC_TS)
    assert headers["webhook-signature"].count("v1,") == len(signs_with)
    verifier = Verifier(knows)
    if ok:
        assert verifier.verify(headers, SPEC_BODY, now=SPEC_TS) == SPEC_ID
    else:
        assert problem(verifier, headers, SPEC_BODY, SPEC_TS) == "mismatch"


@pytest.mark.parametrize(
    "secret",
    [
        "",
        "whsec_",
        "whsec_not*base64*at*all*!!",
        "whsec_" + base64.b64encode(b"s" * 8).decode(),
        "whsec_" + base64.b64encode(b"s" * 65).decode(),
    ],
    ids=["empty", "prefix-only", "not-base64", "too-short", "too-long"],
)
def test_an_unusable_secret_is_refused_without_echoing_it(secret):
    with pytest.raises(SignatureError) as caught:
        decode_secret(secret)
    assert caught.value.problem == "secret"
    assert "24 to 64" in str(caught.value)
    if secret.removeprefix("whsec_"):
        assert secret.removeprefix("whsec_") not in str(caught.value)
    with pytest.raises(SignatureError):
        Signer([secret])
    with pytest.raises(SignatureError):
        Verifier([secret])


def test_no_secret_at_all_is_refused():
    with pytest.raises(SignatureError, match="no signing secret"):
        Signer([])
    with pytest.raises(SignatureError, match="no verification secret"):
        Verifier([])


def test_a_secret_never_shows_in_a_verdict():
    headers = sign(NEW, "msg_1", SPEC_TS, SPEC_BODY)
    for now in (SPEC_TS, SPEC_TS + 999, SPEC_TS - 999):
        with pytest.raises(SignatureError) as caught:
            Verifier([OLD]).verify(headers, SPEC_BODY, now=now)
        text = str(caught.value)
        for secret in (NEW, OLD):
            assert secret.removeprefix("whsec_") not in text
        assert headers["webhook-signature"].removeprefix("v1,") not in text


def test_the_message_id_is_stable_per_operation_and_point_and_holds_no_dot():
    first = message_id("task/T/C/run/7:tool:3", "tool.invoked.pre")
    assert first == message_id("task/T/C/run/7:tool:3", "tool.invoked.pre")  # a retry
    assert first != message_id("task/T/C/run/7:tool:3", "tool.invoked.post")
    assert first != message_id("task/T/C/run/7:tool:4", "tool.invoked.pre")
    assert first.startswith("msg_") and "." not in first and "run" not in first
    # Without a key (a context built outside a task) every call gets its own id.
    assert message_id("", "tool.invoked.pre") != message_id("", "tool.invoked.pre")


def test_the_error_survives_pickling_as_temporal_and_logs_carry_it():
    error = SignatureError(problem="stale", detail="old")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.problem, copy.detail, str(copy)) == ("stale", "old", "signature stale: old")
    assert copy.retryable is False
