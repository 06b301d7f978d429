"""The error tree drawn in harness/errors.py holds every exception class of the packages.

STYLE.md rule 7: one root, a tree in the docstring. The packages are walked and every
module imported, so a class added anywhere (``harness``, ``bot``, ``commands``) and not
drawn fails here, as does one drawn under a class that is not its base.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import harness.errors
from harness.errors import HarnessError

PACKAGES = ("harness", "bot", "commands")
FOREIGN_ROOTS = {"ValueError", "ApplicationError"}
"""Roots of the "deliberately outside" trees: the types those classes' catchers catch."""

_ROOT = re.compile(r"^    (?P<name>[A-Z]\w+)(?:\s|$)")
_CHILD = re.compile(r"^    (?P<indent>(?:│   |    )*)[├└]── (?P<name>\w+)")


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        names = [package] + [
            info.name for info in pkgutil.walk_packages(module.__path__, f"{package}.")
        ]
        for name in names:
            if name.rsplit(".", 1)[-1] == "__main__":
                continue  # importing it would start the program
            for obj in vars(importlib.import_module(name)).values():
                if (
                    inspect.isclass(obj)
                    and issubclass(obj, BaseException)
                    and obj.__module__ == name
                ):
                    assert obj.__qualname__ not in found, f"two classes named {obj.__qualname__}"
                    found[obj.__qualname__] = obj
    return found


def _drawn() -> dict[str, tuple[str | None, str]]:
    """Each drawn class -> (its drawn parent, its tree's root)."""
    drawn: dict[str, tuple[str | None, str]] = {}
    path: list[str] = []
    for line in (harness.errors.__doc__ or "").splitlines():
        if child := _CHILD.match(line):
            depth = len(child["indent"]) // 4 + 1
            del path[depth:]
            assert len(path) == depth, f"drawn without a parent: {line!r}"
            name = child["name"]
            assert name not in drawn, f"{name} drawn twice"
            drawn[name] = (path[-1], path[0])
            path.append(name)
        elif root := _ROOT.match(line):
            path = [root["name"]]
            drawn.setdefault(root["name"], (None, root["name"]))
    return drawn


def test_every_exception_class_is_drawn_under_its_own_base():
    classes = _exception_classes()
    drawn = _drawn()
    assert sorted(set(classes) - set(drawn)) == [], "add these to harness/errors.py's tree"
    assert sorted(set(drawn) - set(classes) - FOREIGN_ROOTS) == [], "drawn but not defined"
    for name, cls in classes.items():
        parent, root = drawn[name]
        bases = {base.__name__ for base in cls.__bases__}
        assert parent is None or parent in bases, f"{name} is drawn under {parent}, not a base"
        assert (root == "HarnessError") == issubclass(cls, HarnessError), name


def test_the_tree_has_harness_error_as_its_root():
    assert _drawn()["HarnessError"] == (None, "HarnessError")


def test_a_configuration_error_is_never_retried_and_a_service_error_is_by_default():
    from harness.errors import ConfigurationError, ServiceError

    classes = _exception_classes().values()
    config = [cls for cls in classes if issubclass(cls, ConfigurationError)]
    assert len(config) > 1
    for cls in config:
        assert Exception.__new__(cls).retryable is False, cls  # no __init__: any constructor's
    assert ServiceError("down").retryable is True
