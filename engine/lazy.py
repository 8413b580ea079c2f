"""Names a package loads on first use: a subsystem's declaration pulls in every handler,
while reading a scenario or a state needs only its models (`komasync scenario check`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, module: str, names: Iterable[str]) -> Callable[[str], Any]:
    """A package's module `__getattr__` that imports `names` from `module` when first asked."""
    wanted = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name not in wanted:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    return __getattr__
