"""How two versions of a published JSON Schema differ: additive, or breaking for an executor.

"A breaking change needs a new version" (issue 15): an executor built against the
published version must keep working when the committed schemas are regenerated, so a new
optional property (or a widened enum, a new description) is *additive* and the fix is
to regenerate; a removed property, a new required one, a changed type or a narrowed
enum is *breaking* and needs the next version (``schemas/v2`` after ``v1``: issue 25's typed
command effects were the first). An object that becomes a union of objects (a tagged
union) is compared option by option, so the report names what each kind lost. A pure
function over two schema documents, resolving their local ``$ref`` s; the schemas
themselves are :mod:`harness.hooks.schema`'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from harness.hooks.remote.wire import SCHEMA_VERSION

REGENERATE: Final = (
    f"regenerate with `python -m harness.hooks schema --out schemas/{SCHEMA_VERSION}`"
)
NEXT_VERSION: Final = f"v{int(SCHEMA_VERSION.removeprefix('v')) + 1}"
"""The version a breaking change to the current one publishes."""
BREAKING: Final = (
    f"breaking change: publish schemas/{NEXT_VERSION} and bump SCHEMA_VERSION to {NEXT_VERSION}"
)

Kind = Literal["same", "additive", "breaking"]
_MAX_DEPTH: Final = 32  # recursive $refs stop here


@dataclass(frozen=True)
class Change:
    """One difference: where (a JSON path), what, and whether it breaks executors."""

    path: str
    what: str
    breaking: bool


@dataclass(frozen=True)
class SchemaDiff:
    """Every difference between two schemas, and what to do about them."""

    changes: list[Change] = field(default_factory=list)

    @property
    def kind(self) -> Kind:
        """``breaking`` if any change is, else ``additive`` if there is any, else ``same``."""
        if any(change.breaking for change in self.changes):
            return "breaking"
        return "additive" if self.changes else "same"

    def advice(self) -> str:
        """The changes, one per line, then what to do (:data:`BREAKING` or :data:`REGENERATE`)."""
        lines = [
            f"{'breaking' if c.breaking else 'additive'}: {c.path}: {c.what}" for c in self.changes
        ]
        if self.kind != "same":
            lines.append(BREAKING if self.kind == "breaking" else REGENERATE)
        return "\n".join(lines)


def classify(old: dict[str, Any], new: dict[str, Any]) -> SchemaDiff:
    """Compare schema ``old`` (committed) with ``new`` (generated).

    Args:
        old: the published schema document.
        new: the one the code makes now.

    Returns:
        The differences; ``.kind`` says whether they break executors built against ``old``.
    """
    changes: list[Change] = []
    _compare(_Doc(old), old, _Doc(new), new, "$", changes, 0)
    return SchemaDiff(changes)


class _Doc:
    """A schema document, for resolving ``#/$defs/...`` references inside it."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        seen = 0
        while isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") and seen < 8:
            target: Any = self.root
            for part in node["$ref"][2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            extra = {key: value for key, value in node.items() if key != "$ref"}
            node = {**target, **extra} if isinstance(target, dict) else extra
            seen += 1
        return node


def _types(node: dict[str, Any]) -> set[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    return set(kind) if isinstance(kind, list) else set()


_LOWER: Final = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER: Final = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_RULES: Final = ("if", "then", "else", "not", "allOf", "pattern", "format", "multipleOf")
"""Keywords that only ever narrow what a schema accepts, compared as a whole: one added or
changed is breaking, one removed additive (``format`` included: a validator may check it)."""

_STRUCTURE: Final = {
    "properties",
    "required",
    "type",
    "enum",
    "const",
    "items",
    "anyOf",
    "oneOf",
    "$ref",
    "$defs",
    "additionalProperties",
    "uniqueItems",
    *_LOWER,
    *_UPPER,
    *_RULES,
}


def _compare(
    od: _Doc,
    o: dict[str, Any],
    nd: _Doc,
    n: dict[str, Any],
    path: str,
    out: list[Change],
    depth: int,
) -> None:
    if depth > _MAX_DEPTH:
        return
    o, n = od.resolve(o), nd.resolve(n)
    options = _options(nd, n) if "properties" in o and "properties" not in n else None
    if options is not None:
        _compare_split(od, o, nd, options, path, out, depth)
        return
    was = _options(od, o) if "properties" in n and "properties" not in o else None
    if was is not None and len(was) == 1:  # ``X | None`` became ``X``: compare the X
        alternatives = len(o.get("oneOf") or o.get("anyOf") or ())
        out.append(Change(path, f"{alternatives} alternatives -> only the object", True))
        _compare(od, was[0], nd, n, path, out, depth + 1)
        return
    if _narrowed_union(od, o, nd, n, path, out, depth):
        return
    if _types(o) and _types(n) and _types(o) != _types(n):
        lost = _types(o) - _types(n)
        out.append(Change(path, f"type {sorted(_types(o))} -> {sorted(_types(n))}", bool(lost)))
    _compare_values(_values(o), _values(n), path, out)
    _compare_constraints(o, n, path, out)
    _compare_properties(od, o, nd, n, path, out, depth)
    if isinstance(o.get("items"), dict) and isinstance(n.get("items"), dict):
        _compare(od, o["items"], nd, n["items"], f"{path}[]", out, depth + 1)
    for key in ("anyOf", "oneOf"):
        ob, nb = o.get(key), n.get(key)
        if isinstance(ob, list) and isinstance(nb, list):
            if len(ob) == len(nb):
                for i, (a, b) in enumerate(zip(ob, nb, strict=True)):
                    _compare(od, a, nd, b, f"{path}.{key}[{i}]", out, depth + 1)
            else:
                narrowed = len(nb) < len(ob)
                out.append(Change(path, f"{key} of {len(ob)} -> {len(nb)} alternatives", narrowed))
    rest = {key for key in set(o) | set(n) if key not in _STRUCTURE and o.get(key) != n.get(key)}
    if rest:
        out.append(Change(path, f"changed {', '.join(sorted(rest))}", False))


def _compare_properties(
    od: _Doc,
    o: dict[str, Any],
    nd: _Doc,
    n: dict[str, Any],
    path: str,
    out: list[Change],
    depth: int,
) -> None:
    op, np_ = o.get("properties", {}), n.get("properties", {})
    required_before, required_now = set(o.get("required", [])), set(n.get("required", []))
    for name in sorted(set(op) - set(np_)):
        out.append(Change(f"{path}.{name}", "property removed", True))
    for name in sorted(set(np_) - set(op)):
        required = name in required_now
        what = "new required property" if required else "new optional property"
        out.append(Change(f"{path}.{name}", what, required))
    for name in sorted(set(op) & set(np_)):
        if name in required_now and name not in required_before:
            out.append(Change(f"{path}.{name}", "property became required", True))
        elif name in required_before and name not in required_now:
            out.append(Change(f"{path}.{name}", "property became optional", False))
        _compare(od, op[name], nd, np_[name], f"{path}.{name}", out, depth + 1)


def _narrowed_union(
    od: _Doc,
    o: dict[str, Any],
    nd: _Doc,
    n: dict[str, Any],
    path: str,
    out: list[Change],
    depth: int,
) -> bool:
    """A union that became one of its alternatives (``X | None`` -> ``None``): breaking, and the
    alternative kept is compared on; whether this applied."""
    listed = o.get("anyOf") or o.get("oneOf")
    if not isinstance(listed, list) or "anyOf" in n or "oneOf" in n or "properties" in n:
        return False
    out.append(Change(path, f"{len(listed)} alternatives -> one", len(listed) > 1))
    kept = [a for a in listed if isinstance(a, dict) and _types(od.resolve(a)) == _types(n)]
    if kept:
        _compare(od, kept[0], nd, n, path, out, depth + 1)
    return True


def _compare_constraints(
    o: dict[str, Any], n: dict[str, Any], path: str, out: list[Change]
) -> None:
    """Bounds, ``additionalProperties: false``, ``uniqueItems`` and the rules of :data:`_RULES`:
    what narrows the values accepted is breaking, what widens them additive."""
    for key in (*_LOWER, *_UPPER):
        before, now = o.get(key), n.get(key)
        if before == now or not all(isinstance(v, int | float | None) for v in (before, now)):
            continue
        if before is None or now is None:
            narrowed = before is None
        else:
            narrowed = now > before if key in _LOWER else now < before
        out.append(Change(path, f"{key} {before} -> {now}", narrowed))
    closed_before = o.get("additionalProperties", True) is False
    closed_now = n.get("additionalProperties", True) is False
    if closed_before != closed_now:
        what = "other properties no longer allowed" if closed_now else "other properties allowed"
        out.append(Change(path, what, closed_now))
    unique = bool(n.get("uniqueItems"))
    if unique != bool(o.get("uniqueItems")):
        out.append(Change(path, f"uniqueItems -> {str(unique).lower()}", unique))
    for key in _RULES:
        if key in n and o.get(key) != n[key]:
            out.append(Change(path, f"{key} {'changed' if key in o else 'added'}", True))
        elif key in o and key not in n:
            out.append(Change(path, f"{key} removed", False))


def _values(node: dict[str, Any]) -> list[Any] | None:
    """The values ``node`` allows, when it lists them (``enum``, or ``const`` as one)."""
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    return [node["const"]] if "const" in node else None


def _compare_values(
    old: list[Any] | None, new: list[Any] | None, path: str, out: list[Change]
) -> None:
    if old is None or new is None:
        return
    gone = [v for v in old if v not in new]
    added = [v for v in new if v not in old]
    if gone:
        out.append(Change(path, f"enum narrowed: {json.dumps(gone)} no longer allowed", True))
    if added:
        out.append(Change(path, f"enum widened: {json.dumps(added)}", False))


def _options(doc: _Doc, node: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The objects a union offers (``oneOf``/``anyOf``; a ``null`` beside them aside), if any."""
    for key in ("oneOf", "anyOf"):
        listed = node.get(key)
        if isinstance(listed, list) and listed and all(isinstance(o, dict) for o in listed):
            resolved = [doc.resolve(option) for option in listed]
            objects = [option for option in resolved if "properties" in option]
            if objects and len(objects) + sum(_types(o) == {"null"} for o in resolved) == len(
                resolved
            ):
                return objects
    return None


def _tag(doc: _Doc, options: list[dict[str, Any]]) -> str | None:
    """The property each option pins to a value of its own (a tagged union's tag), if any."""
    for name in options[0]["properties"]:
        pinned = [_values(doc.resolve(option["properties"].get(name, {}))) for option in options]
        values = [found[0] for found in pinned if found is not None and len(found) == 1]
        if len(values) == len(options) and len(set(map(json.dumps, values))) == len(values):
            return str(name)
    return None


def _compare_split(
    od: _Doc,
    o: dict[str, Any],
    nd: _Doc,
    options: list[dict[str, Any]],
    path: str,
    out: list[Change],
    depth: int,
) -> None:
    """One object became a union of objects (issue 25's typed effects): each option is compared
    with the old object, its tag aside; the tag's values are compared across all options."""
    tag = _tag(nd, options)
    by = f" told apart by {tag}" if tag else ""
    out.append(Change(path, f"one object -> {len(options)} alternatives{by}", False))
    for i, option in enumerate(options):
        where = f"{path}<{option.get('title') or i}>"
        _compare(od, _structure(o, tag), nd, _structure(option, tag), where, out, depth + 1)
    if tag is None:
        return
    old_tag = o["properties"].get(tag)
    if old_tag is None:
        out.append(Change(f"{path}.{tag}", "new required property", True))
        return
    told = [_values(nd.resolve(option["properties"][tag])) or [] for option in options]
    _compare_values(
        _values(od.resolve(old_tag)), [v for found in told for v in found], f"{path}.{tag}", out
    )


def _structure(node: dict[str, Any], tag: str | None) -> dict[str, Any]:
    """``node``'s structure without its documentation or ``tag``: what an option is compared on."""
    kept = {key: value for key, value in node.items() if key in _STRUCTURE}
    kept["properties"] = {k: v for k, v in node.get("properties", {}).items() if k != tag}
    kept["required"] = [name for name in node.get("required", []) if name != tag]
    return kept
