"""Every module's `__all__` names things that exist (the public surface is what it claims)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import komasync.adapters
import komasync.engine
import komasync.server

MODULES = [
    info.name
    for pkg in (komasync.engine, komasync.server, komasync.adapters)
    for info in pkgutil.walk_packages(pkg.__path__, f"{pkg.__name__}.")
]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names missing attributes: {missing}"
