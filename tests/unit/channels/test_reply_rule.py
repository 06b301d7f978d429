"""One reply rule (issue 25): refusal, failure and retry sentences are built in one module.

``harness/channels/replies.py`` words every refusal, failure, question and retry notice a
person reads. This scans every other module of ``harness/``, ``commands/`` and ``bot/``
for string literals shaped like such a reply (``refused: …``, ``failed: …``,
``/x failed: …``, ``… gave up after attempt …``) and fails on a stray one, naming it.
Docstrings and log calls are not replies and are skipped.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
REPLY_MODULE = Path("harness/channels/replies.py")
PACKAGES = ("harness", "commands", "bot")

STARTS = re.compile(r"^\s*(refused|failed|aborted|stopped|asked|not run)\s*:", re.IGNORECASE)
"""A literal that begins like a reply of the rule's kinds."""

MIDDLE = re.compile(r"^\s+(failed:|gave up after attempt\b)")
"""The text after a placeholder: ``f"{typed} failed: …"``, ``f"{op} gave up after attempt …"``."""

ALLOWED: dict[tuple[str, str], str] = {
    (
        "harness/temporal/workflow/failures.py",
        " gave up after attempt ",
    ): "the TaskGaveUp failure's message: history and logs only (client.error_mapping words it)",
    (
        "harness/channels/slack.py",
        " failed: HTTP ",
    ): "ChannelError's message: a post that failed is logged and retried, never replied",
}
"""(module, literal) pairs that look like a reply and are not one, with why."""

_LOGGERS = {"debug", "info", "warning", "error", "exception", "critical", "log"}


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


def stray_literals(path: Path) -> list[str]:
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


def modules() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.relative_to(ROOT) != REPLY_MODULE
    ]


def test_no_module_but_the_reply_module_words_a_refusal_or_a_failure():
    stray = [hit for path in modules() for hit in stray_literals(path)]
    assert stray == [], "word these in harness/channels/replies.py:\n" + "\n".join(stray)


def test_the_scan_finds_what_it_looks_for(tmp_path, monkeypatch):
    """The scanner is not vacuous: each shape it knows is caught, docstrings and logs not."""
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
        hits = stray_literals(sample)
    finally:
        sample.unlink()
    assert [hit.split(": ", 1)[1] for hit in hits] == [
        "'refused: no'",
        "' failed: '",
        "'failed: '",
        "' gave up after attempt '",
    ]


def test_the_reply_module_has_the_sentences():
    from harness.channels import replies
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
