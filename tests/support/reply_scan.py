"""Finds sentences built outside the reply room that can reach Slack (issue 25, one reply rule).

A *sentence* is a string literal, or an f-string's literal parts, with at least two words of
letters and a space (``"model set to "``, ``f"{n} model calls"``); ``"\\n"``, ``", "``,
``"`x`"`` and ``"$5"`` are not. A sentence *can reach Slack* when it sits in a *sink*:

- the ``reply=``, ``text=``, ``question=`` or ``options=`` argument of any call
  (``CommandResult``, ``ChannelMessage``, ``HelpRequest``, bolt's ``say``/``respond``);
- the arguments of ``say``, ``respond``, ``post``, ``notify`` and Slack's ``chat_*`` calls;
- the reason of a ``HookAbort`` (a refusal or a stop is said in the thread) and the
  ``problem=`` of a ``UsageError`` (the reply's first line);
- what an update validator raises (``ValueError(...)``: the bot says it as the task's
  reason), in the validator or in a method it calls.

and from there backwards: a name in a sink is followed to its assignments (and ``append``s)
in its function and module, an unpacked tuple's element by element, an attribute of
``self`` to what any method assigns to it, and a call in a sink to the function it names in
``harness``/``commands``/``bot`` (local, imported, a ``self.`` method, or a local object's
method whose name is defined once there and is no builtin type's), whose returns are sinks
too. Calls into the reply room itself end the search: its sentences are the rule's.
Docstrings, log calls and a command spec's ``summary``/``arguments`` (data of its spec, one
source per command) are not replies.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOM = "harness.replies"
PACKAGES = ("harness", "commands", "bot")
SINK_KEYWORDS = frozenset({"reply", "text", "question", "options"})
SINK_CALLS = frozenset(
    {"say", "respond", "post", "notify", "chat_postMessage", "chat_postEphemeral", "chat_update"}
)
LOGGERS = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})
SPEC_DATA = frozenset({"summary", "arguments"})
"""``CommandSpec(summary=..., arguments=...)``: each command's help and synopsis, as data."""

_BUILTIN_METHODS = frozenset(
    name for kind in (str, bytes, list, dict, set, tuple, int, float) for name in dir(kind)
)
"""``text.replace(...)`` is ``str.replace``, whatever the scanned code calls ``replace``."""
_WORD = re.compile(r"[^\W\d_]{2,}")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def sentence(node: ast.AST) -> str | None:
    """The sentence ``node`` builds (an f-string's placeholders read ``x``), if it is one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        return text if len(_WORD.findall(text)) >= 2 and " " in text else None
    if isinstance(node, ast.JoinedStr):
        words = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        shown = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
        return shown if len(_WORD.findall(words)) >= 2 and " " in words else None
    return None


@dataclass
class Module:
    """One parsed module: what it imports and defines, and which nodes are never replies."""

    name: str
    path: Path
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = field(default_factory=dict)
    parents: dict[int, ast.AST] = field(default_factory=dict)
    skip: set[int] = field(default_factory=set)


def load(root: Path, path: Path) -> Module:
    """Parse ``path`` (under ``root``) and index it."""
    relative = path.relative_to(root).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    module = Module(".".join(parts), path, ast.parse(path.read_text()))
    package = module.name if relative.name == "__init__" else module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        for child in ast.iter_child_nodes(node):
            module.parents[id(child)] = node
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                module.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                module.imports[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, _FUNCTIONS):
            module.defs.setdefault(node.name, []).append(node)
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, *_FUNCTIONS)) and body:
            if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                module.skip.add(id(body[0].value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            module.skip.add(id(node.value))  # attribute docstrings
        if isinstance(node, ast.Call):
            func = node.func
            named = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            quiet = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(func, ast.Attribute) and func.attr in LOGGERS:
                module.skip.update(id(n) for arg in quiet for n in ast.walk(arg))
            if named == "CommandSpec":
                for keyword in node.keywords:
                    if keyword.arg in SPEC_DATA:
                        module.skip.update(id(n) for n in ast.walk(keyword.value))
    return module


class Scan:
    """The sentences of ``modules`` that can reach Slack, each with the path it takes."""

    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self.found: dict[tuple[str, int, str], str] = {}
        self.work: list[tuple[Module, ast.AST, str]] = []
        self.seen: set[int] = set()
        self.calls: dict[str, list[tuple[Module, ast.Call]]] = {}
        for module in modules.values():
            for node in ast.walk(module.tree):
                if isinstance(node, ast.Call):
                    func = node.func
                    named = (
                        func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    )
                    self.calls.setdefault(named, []).append((module, node))
        defined: dict[str, list[tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef]]] = {}
        for module in modules.values():
            for name, functions in module.defs.items():
                defined.setdefault(name, []).extend((module, f) for f in functions)
        self.unique = {name: found for name, found in defined.items() if len(found) == 1}
        """Function and method names defined once in the scanned modules."""

    def run(self) -> list[str]:
        """``module:line: 'sentence'  <- how it reaches Slack``, sorted."""
        for module in self.modules.values():
            if not in_room(module.name):
                self._sinks(module)
        while self.work:
            module, expr, why = self.work.pop()
            if id(expr) not in self.seen:
                self.seen.add(id(expr))
                self._follow(module, expr, why)
        return sorted(
            f"{module}:{line}: {said!r}  <- {why}"
            for (module, line, said), why in self.found.items()
        )

    def _sinks(self, module: Module) -> None:
        for node in ast.walk(module.tree):
            if isinstance(node, _FUNCTIONS) and any(
                isinstance(d, ast.Attribute) and d.attr == "validator" for d in node.decorator_list
            ):
                self._raises(module, node, f"raised by validator {node.name}")
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            named = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            for keyword in node.keywords:
                if keyword.arg in SINK_KEYWORDS:
                    self.work.append((module, keyword.value, f"{keyword.arg}="))
            if named in SINK_CALLS:
                self.work += [(module, arg, f"{named}()") for arg in node.args]
            if named == "HookAbort":
                said = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "reason")]
                self.work += [(module, arg, "a HookAbort's reason") for arg in said]
            if named == "UsageError":
                said = [k.value for k in node.keywords if k.arg == "problem"]
                self.work += [(module, arg, "a UsageError's problem") for arg in said]

    def _raises(self, module: Module, function: ast.AST, why: str, depth: int = 0) -> None:
        for node in ast.walk(function):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                self.work += [(module, arg, why) for arg in node.exc.args[:1]]
            if depth < 2 and isinstance(node, ast.Call):
                for owner, called in self._callees(module, node.func):
                    self._raises(owner, called, f"{why} via {called.name}", depth + 1)

    def _follow(self, module: Module, expr: ast.AST, why: str) -> None:
        scope = self._function_of(module, expr)
        for node in ast.walk(expr):
            if id(node) in module.skip:
                continue
            if isinstance(node, ast.JoinedStr):  # its parts are said as one sentence
                module.skip.update(id(v) for v in node.values if isinstance(v, ast.Constant))
            said = sentence(node)
            if said is not None:
                self.found.setdefault((module.name, getattr(node, "lineno", 0), said), why)
            if isinstance(node, ast.Call):
                for owner, called in self._callees(module, node.func):
                    for inner in ast.walk(called):
                        if isinstance(inner, ast.Return) and inner.value is not None:
                            self.work.append((owner, inner.value, f"{called.name}(), {why}"))
            if isinstance(node, ast.Name):
                self._assignments(module, scope, node.id, why)
                if isinstance(scope, _FUNCTIONS):
                    self._arguments(module, scope, node.id, why)
            if _own(node) and not _receiver(module, node):
                # self.x: what any method of the module assigns to it (not an object whose
                # method is called, ``self._redactor.redact(...)``: the method says what).
                self._assignments(module, module.tree, f"self.{node.attr}", why)

    def _assignments(self, module: Module, scope: ast.AST | None, name: str, why: str) -> None:
        """What is bound to ``name`` (a local, or ``self.x``) in ``scope`` and at module level:
        assigned (also as one element of an unpacked tuple) or appended."""
        nodes = list(ast.walk(scope)) if scope is not None else []
        nodes += module.tree.body  # module-level constants
        for node in nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None:
                    bound = (_bound(t, node.value, name) for t in targets)
                    self.work += [(module, b, f"{name}, {why}") for b in bound if b is not None]
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend", "insert")
                and _named(node.func.value) == name
            ):
                self.work += [(module, arg, f"{name}, {why}") for arg in node.args]

    def _arguments(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, why: str
    ) -> None:
        """``name`` is a parameter of ``function``: what its callers pass for it is a sink."""
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        keywords = {a.arg for a in function.args.kwonlyargs} | set(params)
        if name not in keywords:
            return
        offset = 1 if params[:1] in (["self"], ["cls"]) else 0
        for caller, call in self.calls.get(function.name, []):
            callees = self._callees(caller, call.func, guess=False)
            if all(called is not function for _, called in callees):
                continue  # another function of that name, or one we cannot tell
            said = [k.value for k in call.keywords if k.arg == name]
            if name in params and params.index(name) - offset < len(call.args):
                index = params.index(name) - offset
                said += [call.args[index]] if index >= 0 else []
            where = f"{name} of {function.name}(), {why}"
            self.work += [(caller, arg, where) for arg in said]

    def _function_of(self, module: Module, node: ast.AST) -> ast.AST | None:
        current: ast.AST | None = node
        while current is not None and not isinstance(current, _FUNCTIONS):
            current = module.parents.get(id(current))
        return current

    def _callees(
        self, module: Module, func: ast.AST, *, guess: bool = True
    ) -> list[tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef]]:
        """The functions ``func`` may call; ``guess``: a local object's method by its name
        alone (never when following a parameter back to every caller: a pass-through such as
        ``redactor.redact_text(text)`` would make every caller's text a reply)."""
        if isinstance(func, ast.Name):
            if func.id in module.defs:
                return [(module, d) for d in module.defs[func.id]]
            if func.id in module.imports:
                return self._resolve(module.imports[func.id])
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = func.value.id
            if owner in ("self", "cls"):
                return [(module, d) for d in module.defs.get(func.attr, [])]
            if owner in module.imports:
                return self._resolve(f"{module.imports[owner]}.{func.attr}")
        if guess and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            # ``turn.summary(...)``: a local object's method, whose type a scan cannot know; a
            # name defined once in the scanned code, and no builtin type's, is taken as that.
            return [] if func.attr in _BUILTIN_METHODS else self.unique.get(func.attr, [])
        return []

    def _resolve(
        self, dotted: str, depth: int = 0
    ) -> list[tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef]]:
        where, _, name = dotted.rpartition(".")
        target = self.modules.get(where)
        if depth > 4 or in_room(where) or in_room(dotted) or target is None:
            return []
        if name in target.defs:
            return [(target, d) for d in target.defs[name]]
        if name in target.imports:  # a re-export
            return self._resolve(target.imports[name], depth + 1)
        return []


def _own(node: ast.AST) -> bool:
    """Whether ``node`` is an attribute of ``self`` (``self.ended``)."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _receiver(module: Module, node: ast.AST) -> bool:
    """Whether ``node`` is the object of a method call (``node.method(...)``)."""
    method = module.parents.get(id(node))
    call = module.parents.get(id(method)) if method is not None else None
    return isinstance(call, ast.Call) and call.func is method


def _named(node: ast.AST) -> str:
    """The name a target binds: ``x``, ``self.x``; ``""`` for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    return f"self.{node.attr}" if isinstance(node, ast.Attribute) and _own(node) else ""


def _bound(target: ast.AST, value: ast.AST, name: str) -> ast.AST | None:
    """What of ``value`` an assignment to ``target`` binds to ``name``: all of it, the matching
    element of a tuple unpacked from a tuple (``reply, state = said, "stopped"``), or all of a
    value unpacked otherwise (a call's tuple)."""
    if _named(target) == name:
        return value
    if isinstance(target, ast.Starred):
        return _bound(target.value, value, name)
    if not isinstance(target, ast.Tuple | ast.List):
        return None
    if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
        pairs = [_bound(t, v, name) for t, v in zip(target.elts, value.elts, strict=True)]
        return next((b for b in pairs if b is not None), None)
    return value if any(_bound(t, value, name) is not None for t in target.elts) else None


def in_room(module: str) -> bool:
    """Whether ``module`` is the reply room (or one of its modules)."""
    return module == ROOM or module.startswith(ROOM + ".")


def scan(root: Path, paths: list[Path]) -> list[str]:
    """The sentences of ``paths`` (modules under ``root``) that can reach Slack."""
    modules = {m.name: m for m in (load(root, path) for path in paths)}
    return Scan(modules).run()
