"""Running code written for Paddle on pyfluid with only the import changed: ``paddle`` and its
submodules resolve to pyfluid's while the code is imported or run."""
from __future__ import annotations

import contextlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterator

import pyfluid


@contextlib.contextmanager
def paddle_is_pyfluid() -> Iterator[None]:
    """``import paddle`` / ``import paddle.x.y`` give pyfluid and its submodules inside."""
    import pyfluid.nn.functional  # noqa: F401  (loaded so that its alias exists)
    saved = {name: module for name, module in sys.modules.items()
             if name == "paddle" or name.startswith("paddle.")}
    for name, module in list(sys.modules.items()):
        if name == "pyfluid" or name.startswith("pyfluid."):
            sys.modules["paddle" + name[len("pyfluid"):]] = module
    try:
        yield
    finally:
        for name in [n for n in sys.modules if n == "paddle" or n.startswith("paddle.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def import_paddle_module(path: Path, name: str) -> ModuleType:
    """The module at ``path`` (code that does ``import paddle``), imported on pyfluid."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    with paddle_is_pyfluid():
        spec.loader.exec_module(module)
    assert module.paddle is pyfluid
    return module
