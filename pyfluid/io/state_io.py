"""``paddle.save`` / ``paddle.load`` for state dicts (a Layer's or an optimizer's): Paddle 2.6's
pickle layout (arrays by key, the ``StructuredToParameterName@@`` name table, the optimizer's
``LR_Scheduler`` dict), written atomically and read only through the restricted unpickler."""
from __future__ import annotations

import io
import os
from typing import Any

import numpy as np

from .errors import ModelFileError
from .manifest import check, save_file
from .pickles import UnsafePickleError, _PaddlePickler, load_state, split_big_arrays
from .safe_read import read_file

NAME_TABLE_KEY = "StructuredToParameterName@@"


def save(obj: dict, path: str, protocol: int = 4, **configs: Any) -> None:
    """Pickle a state dict: Tensors/Variables/arrays become arrays, plain dicts of numbers and
    strings (``LR_Scheduler``) stay; Tensors' names go to the name table, as Paddle does."""
    if not isinstance(obj, dict):
        raise NotImplementedError(f"paddle.save: pyfluid saves state dicts (a dict of names to "
                                  f"Tensors), not a {type(obj).__name__}")
    if not 1 < protocol < 5:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    arrays, plain, names = {}, {}, {}
    for key, value in obj.items():
        if isinstance(value, dict):
            plain[key] = dict(value)
        elif isinstance(value, np.ndarray):
            arrays[key] = value
        elif hasattr(value, "name") and (hasattr(value, "_array") or hasattr(value, "block")):
            arrays[key] = _array_of(value)
            names[key] = value.name
        else:
            raise NotImplementedError(f"paddle.save: value of '{key}' is a "
                                      f"{type(value).__name__}; pyfluid saves Tensors, NumPy "
                                      "arrays and dicts of numbers")
    content = {**split_big_arrays(arrays, protocol), **plain}
    if names:
        content[NAME_TABLE_KEY] = names
    buffer = io.BytesIO()
    _PaddlePickler(buffer, protocol=protocol).dump(content)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    save_file(path, buffer.getvalue())


def load(path: str, **configs: Any) -> dict:
    """The state dict in ``path``: Tensors in dynamic mode (NumPy arrays in static mode or
    with ``return_numpy=True``); the name table is dropped unless ``keep_name_table``."""
    from ..engine import Tensor
    from ..framework.context import in_dynamic_mode
    if not os.path.exists(path):
        raise ValueError(f"The ``path`` ({path}) to load model not exists.")
    data = read_file(path)
    check(path, data)
    try:
        state = load_state(data)
    except UnsafePickleError as exc:
        raise ModelFileError(path, f"{exc}. paddle.load reads only state dicts of numpy arrays "
                             "(and dicts of numbers); this file was not written by paddle.save "
                             "or is corrupt.") from None
    if not configs.get("keep_name_table", False):
        state.pop(NAME_TABLE_KEY, None)
    as_numpy = configs.get("return_numpy", False) or not in_dynamic_mode()
    return {key: value if as_numpy or not isinstance(value, np.ndarray) else Tensor(value)
            for key, value in state.items()}


def _array_of(value: Any) -> np.ndarray:
    if hasattr(value, "_array"):
        return np.array(value._array)
    from ..executor import global_scope
    found = global_scope().find_var(value.name)
    if found is None:
        raise ValueError(f"paddle.save: Variable '{value.name}' has no value in the global "
                         "scope; run the startup program first")
    return np.array(found.get_tensor())
