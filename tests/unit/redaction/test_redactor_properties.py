"""Properties of the redactor over every secret family, anywhere in any structure (issue 9).

(a) the fast path (``redact``) returns exactly what the full walk (``_walk``) returns;
(b) no generated secret survives in the JSON of the output.

Secrets are generated per family and placed inside arbitrary text (after escapes and
control characters, next to Unicode, inside URLs), as mapping keys and values, in
lists, tuples, sets, named tuples, frozen dicts and pydantic models. Where a family
cannot be delimited in some adjacency, the generator keeps out of it and says why.
"""

from __future__ import annotations

import base64
import string
from collections.abc import Callable
from typing import Any, NamedTuple

import pydantic_core
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from harness.domain import FrozenDict, ToolCall
from harness.hooks.contexts import ToolInvokedContext
from harness.redaction import DEFAULT_PATTERNS, MASK, Redactor

ALNUM = string.ascii_letters + string.digits
SLACK_HOOK = next(p for p in DEFAULT_PATTERNS if "hooks" in p)
# What JSON writes outside strings (punctuation, numbers, null, true, false): a secret made
# only of these could be spelled by the structure around masked values, which is no leak.
JSON_OUTSIDE_STRINGS = frozenset("{}[]:,0123456789+-.eEnultrfas")


class Fragment(NamedTuple):
    """A secret as placed in text: ``text`` holds ``core``, the part that must not survive.

    ``left``: the family's pattern needs a non-word character before it (``\\b`` before a
    key name, ``Bearer`` or ``Basic``): glued to a letter it is a different word
    ("xpassword"), which no delimiter-free rule could tell from prose. ``right``: it needs a
    delimiter after it (base64 glued to more base64 letters is a different token).
    """

    text: str
    core: str
    bare: str = ""  # ``text`` without its core: what stays readable
    left: bool = False
    right: bool = False


def _token(pattern: str) -> st.SearchStrategy[Fragment]:
    return st.from_regex(pattern, fullmatch=True).map(lambda t: Fragment(t, t))


_slack_hook = st.builds(
    lambda kind, path: Fragment(
        f"https://hooks.slack.com/{kind}/{path}", f"{kind}/{path}", "https://hooks.slack.com/"
    ),
    st.sampled_from(["services", "commands", "actions", "workflows", "triggers"]),
    st.text(ALNUM + "_-/", min_size=6, max_size=20),
)
TOKEN_FAMILIES: dict[str, st.SearchStrategy[Fragment]] = {
    p: _slack_hook if p == SLACK_HOOK else _token(p) for p in DEFAULT_PATTERNS
}

KEYS = [
    "authorization",
    "Proxy-Authorization",
    "X-API-KEY",
    "api_key",
    "api-key",
    "APIKEY",
    "access_token",
    "Access-Token",
    "accesstoken",
    "refresh_token",
    "client-secret",
    "aws_secret_access_key",
    "AWS-Secret-Access-Key",
    "password",
    "Passwd",
    "SECRET",
    "token",
]
VALUE = st.text(ALNUM + "-_.~+/=!$%*()", min_size=8, max_size=16)
_keyed = st.builds(
    lambda key, sep, scheme, value: Fragment(
        f"{key}{sep}{scheme}{value}", value, f"{key}{sep}{scheme}", left=True
    ),
    st.sampled_from(KEYS),
    st.sampled_from(["=", ":", ": ", " = ", '": "', "='", "\t:\t", '="']),
    st.sampled_from(["", "Bearer ", "basic ", "Token ", "Bot "]),
    VALUE,
)
_bearer = st.builds(
    lambda sep, token: Fragment(f"Bearer{sep}{token}", token, f"Bearer{sep}", left=True),
    st.sampled_from([" ", "\t", "  "]),
    st.text(ALNUM + "._~+/=-", min_size=8, max_size=24),
)
_printable = st.characters(blacklist_categories=("C", "Z")) | st.just(" ")
_basic = st.builds(
    lambda sep, user, password: Fragment(
        f"Basic{sep}{(b64 := base64.b64encode(f'{user}:{password}'.encode()).decode())}",
        b64,
        f"Basic{sep}",
        left=True,
        right=True,
    ),
    st.sampled_from([" ", "\t"]),
    st.text(_printable.filter(lambda c: c != ":"), max_size=8),
    st.text(_printable, min_size=1, max_size=12),
)
_url = st.builds(
    lambda scheme, user, password, host: Fragment(
        f"{scheme}://{user}:{password}@{host}", password, f"{scheme}://{user}:@{host}"
    ),
    st.sampled_from(["https", "postgres", "redis", "amqp", "mongodb+srv"]),
    st.text(ALNUM + "-._~%!$&()*+,;=", max_size=8),
    st.text(ALNUM + "-._~%!$&()*+,;=:", min_size=8, max_size=16),
    st.sampled_from(["db.internal:5432/app", "h", "example.com/x?y=1"]),
)
FAMILIES: dict[str, st.SearchStrategy[Fragment]] = {
    **TOKEN_FAMILIES,
    "keyed value": _keyed,
    "bearer": _bearer,
    "basic": _basic,
    "url credentials": _url,
}

# Configured secrets are any text of 4+ characters, but brackets: a secret with one could be
# spelled by a mask and its neighbour ("D] x" in "[REDACTED] x"), and one inside the mask
# ("ACTED") by the mask itself; neither is a leak. No lone surrogates (category Cs): no
# JSON can carry one (pydantic refuses to serialise it), so it never reaches a context.
LITERAL = st.text(
    st.characters(blacklist_characters="[]", blacklist_categories=("Cs",)), min_size=4, max_size=12
).filter(lambda s: s not in MASK)

LEFT = [
    " ",
    "\n",
    "\t",
    "\r\n",
    "\x01",
    "\x1f",
    "\x7f",
    '"',
    "'",
    "\\",
    "(",
    "€",
    "\u2028",
    "\xa0",
    "https://example.com/cb?",
    "\\ ",
    "ü ",
]
RIGHT = [" ", "\n", "\t", "\x01", '"', "&", ")", "é", "\\", "\u3000"]
FILLER = st.text(max_size=8)


class Case(NamedTuple):
    value: Any
    literals: list[str]
    cores: list[str]
    skeleton: list[str]  # every text of the value with its secrets left out


class Box(BaseModel):
    """A model in the structure; no defaults, so nothing is left out of its JSON."""

    label: str
    payload: Any


class Pair(NamedTuple):
    left: Any
    right: Any


@st.composite
def texts(draw: st.DrawFn, literals: list[str], cores: list[str], skeleton: list[str]) -> str:
    secrets = [*FAMILIES.values()]
    if literals:
        secrets.append(st.sampled_from(literals).map(lambda s: Fragment(s, s)))
    real, bare = [], []
    for _ in range(draw(st.integers(0, 3))):
        filler = draw(FILLER)
        real.append(filler)
        bare.append(filler)
        if draw(st.booleans()):
            fragment = draw(st.one_of(secrets))
            left = draw(st.sampled_from(LEFT)) if fragment.left else ""
            right = draw(st.sampled_from(RIGHT)) if fragment.right else ""
            real += [left, fragment.text, right]
            bare += [left, fragment.bare, right]
            cores.append(fragment.core)
    skeleton.append("".join(bare))
    return "".join(real)


@st.composite
def structures(
    draw: st.DrawFn, literals: list[str], cores: list[str], skeleton: list[str], depth: int = 0
) -> Any:
    def child() -> Any:
        return draw(structures(literals, cores, skeleton, depth + 1))

    def text() -> str:
        return draw(texts(literals, cores, skeleton))

    kinds: dict[str, Callable[[], Any]] = {
        "text": text,
        "int": lambda: draw(st.integers(0, 99)),
        "none": lambda: None,
        "bool": lambda: draw(st.booleans()),
    }
    if depth < 3:
        kinds |= {
            "list": lambda: [child() for _ in range(draw(st.integers(0, 3)))],
            "tuple": lambda: tuple(child() for _ in range(draw(st.integers(0, 3)))),
            "dict": lambda: {text(): child() for _ in range(draw(st.integers(0, 3)))},
            "frozen": lambda: FrozenDict({text(): child() for _ in range(draw(st.integers(0, 2)))}),
            "set": lambda: frozenset(text() for _ in range(draw(st.integers(0, 2)))),
            "pair": lambda: Pair(child(), child()),
            "model": lambda: Box(label=text(), payload=child()),
        }
    return kinds[draw(st.sampled_from(sorted(kinds)))]()


@st.composite
def cases(draw: st.DrawFn, make: Callable[..., Any] = structures) -> Case:
    literals = draw(st.lists(LITERAL, max_size=2, unique=True))
    cores: list[str] = []
    skeleton: list[str] = []
    value = draw(make(literals, cores, skeleton))
    for core in cores:
        # A core the rest of the value holds anyway (shrinking makes "00000000" everywhere)
        # or that JSON's own punctuation can spell tells nothing about redaction.
        assume(not any(core in text for text in skeleton))
        assume(not set(core) <= JSON_OUTSIDE_STRINGS)
    return Case(value, literals, cores, skeleton)


def json_escaped(text: str) -> str:
    return pydantic_core.to_json(text).decode()[1:-1]


def assert_no_secret_survives(case: Case, out: Any) -> None:
    dumped = pydantic_core.to_json(out).decode()
    for core in case.cores:
        assert json_escaped(core) not in dumped, core


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cases())
def test_fast_path_equals_the_walk_and_no_secret_survives_anywhere(case):
    redactor = Redactor(secrets=case.literals)
    out = redactor.redact(case.value)
    assert out == redactor._walk(case.value)
    assert_no_secret_survives(case, out)


@SETTINGS
@given(cases())
def test_inside_a_context_too(case):
    redactor = Redactor(secrets=case.literals)
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"v": case.value}))
    out = redactor.redact(ctx)
    assert out == redactor._walk(ctx)
    assert_no_secret_survives(case, out)


@SETTINGS
@given(cases(make=texts))
def test_text_alone(case):
    redactor = Redactor(secrets=case.literals)
    assert_no_secret_survives(case, redactor.redact_text(case.value))
    value = {"t": case.value, case.value: 1}
    assert redactor.redact(value) == redactor._walk(value)


def test_every_default_pattern_has_a_generator():
    assert set(TOKEN_FAMILIES) == set(DEFAULT_PATTERNS)
