"""The registry of language integrations. Each language adds one module and one line here."""
from __future__ import annotations

import importlib

from .base import LaunchSpec, Toolchain

# language → "module:Class". Modules are imported lazily so one broken integration cannot break others.
_REGISTRY = {
    "python": "perflab.toolchains.python:PythonToolchain",
    "go": "perflab.toolchains.go:GoToolchain",
    "node": "perflab.toolchains.node:NodeToolchain",
    "java": "perflab.toolchains.java:JavaToolchain",
    "rust": "perflab.toolchains.rust:RustToolchain",
    "cpp": "perflab.toolchains.cpp:CppToolchain",
    "csharp": "perflab.toolchains.csharp:CSharpToolchain",
}


def register(language: str, target: str) -> None:
    _REGISTRY[language] = target


def languages() -> list[str]:
    return list(_REGISTRY)


_cache: dict[str, Toolchain] = {}


def get(language: str) -> Toolchain:
    if language not in _cache:
        mod, cls = _REGISTRY[language].split(":")
        _cache[language] = getattr(importlib.import_module(mod), cls)()
    return _cache[language]


def all_toolchains() -> list[Toolchain]:
    out = []
    for lang in _REGISTRY:
        try:
            out.append(get(lang))
        except ImportError:  # an integration whose module is missing is simply absent
            continue
    return out


__all__ = ["LaunchSpec", "Toolchain", "get", "all_toolchains", "languages", "register"]
