"""Docs stand alone (issue 11): every relative link in README.md and docs/*.md reaches a file of
the repository, and every ``#anchor`` a heading of the file it names.

A link that leaves the repository (``../shared/...``) or names a file a clone does not
get (ignored by git, like ``.data/``) fails, as do anchors to headings renamed since.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def links(text: str) -> list[str]:
    """Link targets outside code (a path in a code block is an example, not a link)."""
    prose = _CODE.sub("", _FENCE.sub("", text))
    return _LINK.findall(prose) + _REFERENCE.findall(prose)


def anchors(text: str) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens."""
    found: set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        found.add(re.sub(r"[^\w\- ]", "", plain.lower()).replace(" ", "-"))
    return found


def shipped() -> set[Path]:
    """Files a clone has: tracked, or new and not ignored (so work in progress counts)."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    files = {(ROOT / line).resolve() for line in out.splitlines()}
    return files | {parent for f in files for parent in f.parents}


def problems(page: Path, text: str, files: set[Path]) -> list[str]:
    """What is wrong with the links of ``text``, read as the page at ``page``."""
    found = []
    for target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        name = f"{page.relative_to(ROOT)}: {target}"
        if not path:  # an anchor of this page
            if anchor not in anchors(text):
                found.append(f"{name}: no such heading")
            continue
        resolved = (page.parent / path).resolve()
        if not resolved.is_relative_to(ROOT):
            found.append(f"{name} leaves the repository")
        elif resolved not in files:
            found.append(f"{name} names no file of the repository")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text()):
            found.append(f"{name}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading_of_the_repository(page):
    assert problems(page, page.read_text(encoding="utf-8"), shipped()) == []


def test_the_link_check_catches_what_a_clone_would_miss():
    page = ROOT / "docs" / "probe.md"  # read as a page of docs/; never written
    text = (
        "[a](../../shared/DESIGN.md) [b](missing.md) [c](design.md#no-such-heading) "
        "[d](design.md#semantics-the-contract-tests-pin-every-line) `[e](nowhere.md)` "
        "[f](https://example.com/x.md) [h](../README.md#local-mode) [i](#probe) [k](#nope)\n\n"
        "# Probe\n\n```\n[j](in-a-code-block.md)\n```\n\n[g]: ../.data/temporal.db\n"
    )
    assert problems(page, text, shipped()) == [
        "docs/probe.md: ../../shared/DESIGN.md leaves the repository",
        "docs/probe.md: missing.md names no file of the repository",
        "docs/probe.md: design.md#no-such-heading: no heading #no-such-heading in docs/design.md",
        "docs/probe.md: #nope: no such heading",
        "docs/probe.md: ../.data/temporal.db names no file of the repository",
    ]
