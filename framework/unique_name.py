"""Deterministic unique names: ``generate('fc')`` gives fc_0, fc_1, ... per key."""
from __future__ import annotations

import contextlib
from collections import defaultdict
from typing import Iterator


class UniqueNameGenerator:
    def __init__(self, prefix: str = ""):
        self.prefix = prefix
        self.ids: defaultdict[str, int] = defaultdict(int)

    def __call__(self, key: str) -> str:
        n = self.ids[key]
        self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"


_generator = UniqueNameGenerator()


def generate(key: str) -> str:
    return _generator(key)


def generate_with_ignorable_key(key: str) -> str:
    return _generator(key)


def switch(new_generator: UniqueNameGenerator | None = None) -> UniqueNameGenerator:
    """Install ``new_generator`` (a fresh one if None) and return the previous one."""
    global _generator
    old = _generator
    _generator = new_generator if new_generator is not None else UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator: "UniqueNameGenerator | str | None" = None) -> Iterator[None]:
    """Use fresh counters (optionally with a name prefix) inside the block."""
    if isinstance(new_generator, (str, bytes)):
        prefix = new_generator.decode() if isinstance(new_generator, bytes) else new_generator
        new_generator = UniqueNameGenerator(prefix)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
