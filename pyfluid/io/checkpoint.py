"""Checkpoints as ``paddle.static.save`` writes them (spec section 2.4): ``.pdparams`` (pickled
parameters), ``.pdopt`` (pickled optimizer variables) and ``.pdmodel`` (the whole program).
Pickles are read only through :mod:`.pickles`' restricted unpickler, and a load checks every
value before any reaches the scope."""
from __future__ import annotations

import logging
import os
import warnings
from typing import Any

import numpy as np

from ..executor.scope import global_scope
from ..framework.program import Program
from ..framework.program_state import is_belong_to_optimizer, is_parameter, is_persistable
from ..framework.serialize import program_to_bytes
from ..framework.variable import Variable
from ..ops.types import to_numpy_dtype
from . import manifest
from .errors import ModelFileError
from .pickles import UnsafePickleError, dump_arrays, join_big_arrays, load_arrays
from .tensor_stream import TensorStreamError, tensor_from_bytes
from .safe_read import path_inside, read_file
from .variables import check_value, commit, read_combined, read_separate, scope_arrays

_logger = logging.getLogger(__name__)
_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel")


def save(program: Program, model_path: str, protocol: int = 4, **configs: Any) -> None:
    """Write ``<model_path>.pdparams``, ``.pdopt`` and ``.pdmodel`` (values from the global
    scope) and the save manifest ``.pdsha256``, after every value has been gathered: a failed
    or killed save leaves the previous files, or a mix that loading refuses."""
    if not os.path.basename(model_path):
        raise AssertionError("The input model_path MUST be format of dirname/filename [dirname\\"
                             "filename in Windows system], but received model_path is empty "
                             "string.")
    if "pickle_protocol" in configs:
        protocol = configs["pickle_protocol"]
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' "
                      "instead.", stacklevel=2)
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    folder = os.path.dirname(model_path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    scope = global_scope()
    params = _unique(v for v in program.list_vars() if is_parameter(v))
    optimizer_vars = _unique(v for v in program.list_vars() if is_belong_to_optimizer(v))
    whole = program.clone()
    whole.desc._set_version()
    manifest.save_files({
        model_path + ".pdparams": dump_arrays(_values(params, scope), protocol),
        model_path + ".pdopt": dump_arrays(_values(optimizer_vars, scope), protocol),
        model_path + ".pdmodel": program_to_bytes(whole),
    })


def load(program: Program, model_path: str, executor: Any = None,
         var_list: list[Variable] | None = None) -> None:
    """Load a checkpoint written by :func:`save` (or Paddle) into the global scope. Without a
    ``.pdparams`` file, ``model_path`` may be a ``save_vars`` folder or combined file (then an
    ``executor`` is required, and ``var_list`` for a combined file). All or nothing."""
    prefix = _strip_suffix(model_path)
    params_path = prefix + ".pdparams"
    if not os.path.exists(params_path):
        commit(global_scope(), _load_save_vars_layout(program, model_path, executor, var_list))
        return
    staged = _checked(_load_pickle(params_path), _unique(
        v for v in program.list_vars() if is_parameter(v)), params_path)
    optimizer_vars = _unique(v for v in program.list_vars() if is_belong_to_optimizer(v))
    if optimizer_vars:
        opt_path = prefix + ".pdopt"
        if not os.path.exists(opt_path):
            raise AssertionError(f"Optimizer file [{opt_path}] not exits")
        staged.update(_checked(_load_pickle(opt_path), optimizer_vars, opt_path))
    commit(global_scope(), staged)


def load_program_state(model_path: str, var_list: list[Variable] | None = None) -> dict:
    """``{name: ndarray}`` of a checkpoint: ``.pdparams`` plus ``.pdopt`` if present, or the
    tensor files of a ``save_vars`` folder / combined file (``var_list`` needed for a file)."""
    prefix = _strip_suffix(model_path)
    params_path = prefix + ".pdparams"
    if not os.path.exists(params_path):
        if var_list is None and os.path.isfile(model_path):
            raise ValueError("var_list can not be None when model_path is a file type")
        if os.path.isfile(model_path):
            ordered = sorted(var_list, key=lambda v: v.name)
            return read_combined(read_file(model_path), ordered, model_path)
        return _read_folder(model_path, var_list)
    state = _load_pickle(params_path)
    opt_path = prefix + ".pdopt"
    if os.path.exists(opt_path):
        state.update(_load_pickle(opt_path))
    else:
        manifest.check_present(opt_path)
    return state


def set_program_state(program: Program, state_dict: dict) -> None:
    """Set the program's persistable variables from ``{name: ndarray}``; shapes and dtypes
    must equal the current values. Everything is checked before anything is set."""
    state_dict = join_big_arrays(dict(state_dict))
    scope = global_scope()
    updates, used = {}, set()
    for var in _unique(v for v in program.list_vars() if is_persistable(v)):
        held = scope.find_var(var.name)
        if held is None:
            warnings.warn(f"Variable [ {var.name} ] are not used, because not included in layers "
                          "state_dict", stacklevel=2)
            continue
        if var.name not in state_dict:
            continue
        new = np.asarray(state_dict[var.name])
        if held.is_initialized():
            old = np.asarray(held.get_tensor())
            shape_fits, dtype_fits = old.shape == new.shape, old.dtype == new.dtype
            shape, dtype = old.shape, old.dtype
        else:              # no value yet: the program's declaration decides (-1 = any size)
            shape, dtype = var.shape, to_numpy_dtype(var.dtype)
            shape_fits = len(shape) == new.ndim and all(
                d < 0 or d == n for d, n in zip(shape, new.shape))
            dtype_fits = var._dtype is None or dtype == new.dtype
        if not shape_fits:
            raise AssertionError("Parameter's shape does not match, the Program requires a "
                                 f"parameter with the shape of ({shape}), while the loaded "
                                 f"parameter (namely [ {var.name} ]) has a shape of "
                                 f"({new.shape}).")
        if not dtype_fits:
            raise AssertionError("Parameter's data type does not match, the Program requires a "
                                 f"parameter with a dtype of ({dtype}), while the loaded "
                                 f"parameter (namely [ {var.name} ]) has a dtype of "
                                 f"({new.dtype}).")
        updates[var.name] = np.array(new, copy=True)
        used.add(var.name)
    unused = [k for k in state_dict if k not in used]
    if unused:
        warnings.warn("This list is not set, Because of Paramerter not found in program. There "
                      f"are: {' '.join(unused)}", stacklevel=2)
    commit(scope, updates)


# -- helpers ----------------------------------------------------------------------------------
def _strip_suffix(model_path: str) -> str:
    for suffix in _SUFFIXES:
        if model_path.endswith(suffix):
            return model_path[:-len(suffix)]
    return model_path


def _unique(variables) -> list[Variable]:
    seen = {}
    for var in variables:
        seen.setdefault(var.name, var)
    return list(seen.values())


def _values(variables: list[Variable], scope) -> dict[str, np.ndarray]:
    arrays = scope_arrays(variables, scope)
    return {v.name: np.array(a, copy=True) for v, a in zip(variables, arrays)}


def _load_pickle(path: str) -> dict[str, np.ndarray]:
    data = read_file(path)
    manifest.check(path, data)
    try:
        return load_arrays(data)
    except UnsafePickleError as exc:
        raise ModelFileError(path, f"{exc}. Checkpoint pickles may hold only a dict of names to "
                             "plain numpy arrays; this file was not written by "
                             "paddle.static.save or is corrupt.") from None


def _checked(state: dict, variables: list[Variable], path: str) -> dict[str, np.ndarray]:
    staged = {}
    for var in variables:
        if var.name not in state:
            raise AssertionError(f"Can not find [{var.name}] in model file [{path}]")
        staged[var.name] = check_value(var, state[var.name], path)
    return staged


def _load_save_vars_layout(program: Program, model_path: str, executor: Any,
                           var_list: list[Variable] | None) -> dict[str, np.ndarray]:
    _logger.debug("%s.pdparams not found, try to load model file saved with [ save_params, "
                  "save_persistables, save_vars ]", _strip_suffix(model_path))
    if executor is None:
        raise ValueError("executor is required when loading model file saved with [ "
                         "save_params, save_persistables, save_vars ]")
    wanted = None if var_list is None else {v.name for v in var_list}
    if os.path.isdir(model_path):
        files = {os.path.relpath(os.path.join(root, f), model_path).replace("\\", "/")
                 for root, _, names in os.walk(model_path) for f in names}
        chosen = [v for v in _unique(program.list_vars())
                  if v.name in files and (wanted is None or v.name in wanted)]
        unused = files - {v.name for v in chosen}
        if unused:
            _logger.warning("variable file [ %s ] not used", " ".join(sorted(unused)))
        return read_separate(model_path, chosen)
    if os.path.isfile(model_path):
        if var_list is None:
            raise ValueError("var_list is required when loading model file saved with [ "
                             "save_params, save_persistables, save_vars ]")
        names = {v.name for v in program.list_vars()}
        for var in var_list:
            if var.name not in names:
                raise LookupError(f"loaded var [{var.name}] is not in program variable list")
        ordered = sorted(_unique(var_list), key=lambda v: v.name)
        return read_combined(read_file(model_path), ordered, model_path)
    raise FileNotFoundError(f"No checkpoint at '{model_path}': neither "
                            f"'{_strip_suffix(model_path)}.pdparams' nor a save_vars folder or "
                            "file exists")


def _read_folder(folder: str, var_list: list[Variable] | None) -> dict[str, np.ndarray]:
    if var_list is not None:
        return read_separate(folder, _unique(var_list))
    state = {}
    for root, _, names in os.walk(folder):
        for f in names:
            name = os.path.relpath(os.path.join(root, f), folder).replace("\\", "/")
            path = path_inside(folder, name)
            try:
                state[name], _ = tensor_from_bytes(read_file(path))
            except TensorStreamError as exc:
                raise ModelFileError(path, str(exc)) from None
    return state
