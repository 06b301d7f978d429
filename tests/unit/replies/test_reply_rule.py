"""One reply rule (issue 25): every sentence a person reads in Slack is worded in one room.

The room is the package ``harness/replies/``. Two scans of every other module of
``harness/``, ``commands/`` and ``bot/`` keep it so:

- the *sink* scan (:mod:`tests.support.reply_scan`) fails on any sentence built outside the
  room that can reach Slack: a literal or f-string with words given as a reply, a posted
  text, a question or its buttons, a ``HookAbort``'s reason, a ``UsageError``'s problem or
  an update validator's rejection, or flowing there through names and function returns;
- the *shape* scan fails on any literal shaped like a reply of the rule's kinds
  (``refused: …``, ``/x failed: …``, ``… gave up after attempt …``), wherever it is.

Docstrings, log calls and each command's summary and synopsis (data of its spec, one source
per command) are not replies. What remains that looks like one and is not, is below with why.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

from tests.support.reply_scan import scan, sentence

ROOT = Path(__file__).resolve().parents[3]
ROOM = Path("harness/replies")
PACKAGES = ("harness", "commands", "bot")

TOOLING: dict[str, str] = {
    "bot/say/": "developer tooling (python -m bot.say): sends what a developer types",
    "bot/replay/": "developer tooling: replays recorded Slack requests against a bot",
    "bot/testing/": "the test kit: talks to a bot as Slack does, never runs in it",
    "bot/standin/": "the local stand-in for Slack: its errors imitate Slack's own",
}
"""The bot's developer-tooling rooms (import-linter's layers keep the running bot off them)."""

ALLOWED: dict[tuple[str, str], str] = {
    ("bot/gate.py", "body too large"): "HTTP answers to Slack's servers, not a thread",
    ("bot/gate.py", "malformed body"): "HTTP answers to Slack's servers, not a thread",
    ("bot/gate.py", "bad request"): "HTTP answers to Slack's servers, not a thread",
    ("bot/gate.py", "invalid signature"): "HTTP answers to Slack's servers, not a thread",
    ("bot/lifecycle.py", "shutting down"): "the 503 body Slack's servers get while it drains",
    ("harness/temporal/codec_server.py", ""): "HTTP answers to the Temporal Web UI's codec calls",
    ("harness/models/offline.py", ""): "the offline model's own answers, as a real model's are",
    ("harness/hook_server/profile.py", "conformance "): (
        "the conformance profile's own abort reasons, which the kit reads, not a thread"
    ),
    ("harness/hooks/remote/strict.py", "a reply carries"): (
        "a malformed remote reply is a transport failure: its text stays in the log "
        "(replies.failure words it), reached by following the whole reply object"
    ),
    ("harness/hooks/remote/wire.py", "Parse error"): "the JSON-RPC server's error to its caller",
    (
        "harness/hooks/remote/wire.py",
        "Invalid Request",
    ): "the JSON-RPC server's error to its caller",
    ("harness/hooks/schema.py", "The point's context"): "a JSON schema's description",
    ("harness/temporal/workflow/retries.py", "lost worker"): (
        "the activity summary the Temporal Web UI shows, reached by following the whole outcome"
    ),
    # The shape scan's two:
    ("harness/temporal/workflow/failures.py", " gave up after attempt "): (
        "the TaskGaveUp failure's message: history and logs only (client.error_mapping words it)"
    ),
    ("harness/channels/slack.py", " failed: HTTP "): (
        "ChannelError's message: a post that failed is logged and retried, never replied"
    ),
}
"""(module, part of the sentence) that looks like a reply and is not one, with why."""

STARTS = re.compile(r"^\s*(refused|failed|aborted|stopped|asked|not run)\s*:", re.IGNORECASE)
"""A literal that begins like a reply of the rule's kinds."""

MIDDLE = re.compile(r"^\s+(failed:|gave up after attempt\b)")
"""The text after a placeholder: ``f"{typed} failed: …"``, ``f"{op} gave up after attempt …"``."""

_LOGGERS = {"debug", "info", "warning", "error", "exception", "critical", "log"}


def modules() -> list[Path]:
    """Every module of the packages but the room's and the bot's tooling."""
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if not path.relative_to(ROOT).is_relative_to(ROOM)
        and not any(str(path.relative_to(ROOT)).startswith(room) for room in TOOLING)
    ]


def allowed(hit: str) -> bool:
    module = hit.split(":", 1)[0].replace(".", "/")
    return any(
        module in (m.removesuffix(".py"), m.removesuffix("/__init__.py")) and part in hit
        for m, part in ALLOWED
    )


def stray_sentences(paths: list[Path]) -> list[str]:
    """The sentences of ``paths`` that can reach Slack, but the allowed ones."""
    return [hit for hit in scan(ROOT, paths) if not allowed(hit)]


def test_no_module_but_the_room_builds_a_sentence_that_reaches_slack():
    stray = stray_sentences(modules())
    assert stray == [], "word these in harness/replies/:\n" + "\n".join(stray)


PLANTED = '''"""refused: a docstring is no reply."""
import logging
from harness import replies
from harness.domain import ChannelMessage, CommandResult
from harness.hooks import HookAbort
from commands.spec import UsageError
log = logging.getLogger("x")
HINT = "a module constant that is posted"
def shown(n):
    return f"the setting is now {n}"
def quiet(n):
    log.info("a logged line is no reply %s", n)
    return replies.refused(replies.NOT_IN_TASK)
def body(n, say):
    lines = ["a listed line"]
    lines.append(f"and {n} more lines")
    say(text="\\n".join(lines))
    say(HINT)
    say(replies.refused("a sentence handed to the room"))
    return CommandResult(reply=shown(n) if n else quiet(n))
def post(text):
    return ChannelMessage(text=text)
def thread(n):
    return post(f"posted through a helper {n}")
def veto(n):
    raise HookAbort(f"a stray veto of {n}")
def parse(text):
    raise UsageError(command="x", problem="a stray usage problem", usage="/x")
class Workflow:
    @update.validator
    def _check(self, n):
        self._open()
        raise ValueError("a stray rejection")
    def _open(self):
        raise ValueError("a stray rejection in a helper")
class Turn:
    def summary(self, n):
        lines = [f"not done: {n} steps left"]
        return "\\n".join(lines)
class Conversation:
    def end(self, turn, n):
        reply, state = turn.summary(n), "a state nobody reads"
        self.ended, self.state = reply, state
        self.say_end()
    def say_end(self):
        post(self.ended)
'''


def test_the_sink_scan_finds_a_planted_stray_sentence_on_every_path(tmp_path):
    """The scan is not vacuous: each way a sentence reaches Slack is caught; a docstring, a
    log line, a sentence the room words and a command's spec data are not. A stopped turn's
    summary (issue 25) reached Slack through a local object's method, a tuple unpacked and
    an attribute of ``self`` (``reply, state = turn.summary(...), "stopped"``, then
    ``self.ended``), which the scan did not follow; it does, and the tuple's other element
    is not taken for a reply."""
    package = tmp_path / "harness"
    package.mkdir()
    (package / "planted.py").write_text(PLANTED)
    found = {
        hit.split(": ", 1)[1].split("  <- ")[0] for hit in scan(tmp_path, [package / "planted.py"])
    }
    assert found == {
        "'the setting is now x'",
        "'a listed line'",
        "'and x more lines'",
        "'a module constant that is posted'",
        "'posted through a helper x'",
        "'a stray veto of x'",
        "'a stray usage problem'",
        "'a stray rejection'",
        "'a stray rejection in a helper'",
        "'a sentence handed to the room'",
        "'not done: x steps left'",
    }


def test_a_sentence_is_words_not_punctuation():
    def said(source: str) -> str | None:
        return sentence(ast.parse(source, mode="eval").body)

    assert said('"model set to "') and said('f"{n} model calls"')
    assert not said('"\\n"') and not said('", "') and not said('f"`{x}`"') and not said('"$5"')
    assert not said('f"{a} {b}"') and not said('"tool"')


def shaped_literals(path: Path) -> list[str]:
    """Reply-shaped literals of ``path``, as ``line: text``."""
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree) | _logged(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if STARTS.match(node.value):
                found.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            parts = node.values
            head = parts[0] if parts else None
            if isinstance(head, ast.Constant) and STARTS.match(str(head.value)):
                found.append((node.lineno, str(head.value)))
            for before, after in itertools.pairwise(parts):
                text = after.value if isinstance(after, ast.Constant) else None
                if isinstance(before, ast.FormattedValue) and isinstance(text, str):
                    if MIDDLE.match(text):
                        found.append((node.lineno, text))
            skip.update(id(n) for n in ast.walk(node))
    module = str(path.relative_to(ROOT))
    return [
        f"{module}:{line}: {text!r}"
        for line, text in found
        if not any(m == module and t in text for m, t in ALLOWED)
    ]


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            ids.add(id(node.value))  # attribute docstrings
    return ids


def _logged(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _LOGGERS
        ):
            for arg in node.args:
                ids.update(id(n) for n in ast.walk(arg))
    return ids


def test_no_module_but_the_room_words_a_refusal_or_a_failure():
    stray = [hit for path in modules() for hit in shaped_literals(path)]
    assert stray == [], "word these in harness/replies/:\n" + "\n".join(stray)


def test_the_shape_scan_finds_what_it_looks_for():
    """The shape scan is not vacuous: each shape it knows is caught, docstrings and logs not."""
    sample = ROOT / "harness" / "_reply_rule_sample.py"
    source = (
        '"""refused: a docstring is no reply."""\n'
        'import logging\nlog = logging.getLogger("x")\n'
        'A = "refused: no"\n'
        "def f(typed, op, n, why):\n"
        '    log.info("failed: %s", why)\n'
        '    return f"{typed} failed: {why}", f"failed: {why}", f"{op} gave up after attempt {n}"\n'
    )
    sample.write_text(source)
    try:
        hits = shaped_literals(sample)
    finally:
        sample.unlink()
    assert [hit.split(": ", 1)[1] for hit in hits] == [
        "'refused: no'",
        "' failed: '",
        "'failed: '",
        "' gave up after attempt '",
    ]


def test_no_sentence_of_the_room_names_an_operation_or_a_hook_point():
    """What the room says never names an operation (``llm.invoked``) or a hook point
    (``tool.invoked.pre``): those are the logs' (issue 25's ``llm.invoked produced no
    response`` reached a thread)."""
    from harness.hooks import OPERATIONS

    names = re.compile(r"\b(" + "|".join(re.escape(op) for op in OPERATIONS) + r")\b")
    said = []
    for path in sorted((ROOT / ROOM).glob("*.py")):
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        said += [
            f"{path.name}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            if id(node) not in docs and names.search(node.value) and sentence(node)
        ]
    assert said == []


def test_the_reply_module_has_the_sentences():
    from harness import replies
    from harness.domain.outcome import Failed, Refused

    down = Failed(operation="tool.invoked", attempt=4, error_type="HookTransportError")
    said = replies.turn(down.model_copy(update={"service": "policy-gate"}))
    assert said == (
        "failed: the hook service `policy-gate` could not be reached (tried 4 times); "
        "try again in a minute"
    )
    unnamed = down.model_copy(update={"service": "jsonrpc:http://127.0.0.1:8765/rpc"})
    assert "127.0.0.1" not in replies.turn(unnamed)
    assert replies.command("/effort", Refused(reason="watchers cannot", point="x.pre")) == (
        "refused: watchers cannot"
    )
    bug = Failed(operation="tool.invoked", error_type="KeyError", error_message="'secret id'")
    assert "KeyError" not in replies.failure(bug) and "secret id" not in replies.failure(bug)


def test_the_room_keeps_each_module_small_and_its_names_in_one_place():
    """Split by concept, each module under the cap; every public name re-exported once."""
    from harness import replies

    for path in sorted((ROOT / ROOM).glob("*.py")):
        assert len(path.read_text().splitlines()) <= 400, path.name
    assert len(set(replies.__all__)) == len(replies.__all__)
    assert all(hasattr(replies, name) for name in replies.__all__)
