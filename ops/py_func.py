"""The ``py_func`` op: a user's Python function as an op of a static program (spec §3).

Paddle's attributes are kept (``forward_callable_id``, ``backward_callable_id``,
``backward_skip_vars``); ``forward_callable_name`` / ``backward_callable_name`` add the
readable names (``module:qualname``) that the kernel looks up among the functions registered
for py_func, so a program runs the right function in any process that registered it or fails
naming the missing one; a name never imports or reaches anything else (``py_func_registry``).

At run time the function gets the input values as read-only NumPy arrays and returns None
(no outputs), one value, or a list/tuple of one value per output, as
Paddle's ``PyFuncRegistry.__call__`` and ``py_func_op.cc`` define. There is no shape check:
runtime shapes are the function's, with one warning per op when a result contradicts a
declared dimension. The backward op is another ``py_func`` (§3.3).
"""
from __future__ import annotations

import warnings
import weakref
from typing import Any, Callable

import numpy as np

from .py_func_registry import PyFuncNotRegisteredError, lookup
from .registry import EMPTY_VAR, ROLE_BACKWARD, grad_name, register_op
from .types import AttrType, to_numpy_dtype

py_func = register_op(
    "py_func", inputs=["X*?"], outputs=["Out*?"],
    attrs={"forward_callable_id": 0, "backward_callable_id": -1,
           "backward_skip_vars": (AttrType.STRINGS, []),
           "forward_callable_name": "", "backward_callable_name": ""})

_NO_RETURN = ("Python function has no return values or returns None. In this case, "
              "ret_num = 1 && ret[0] == None && out_num should be 0. ")
_WARNED_OPS: weakref.WeakSet = weakref.WeakSet()   # ops whose mismatch warning was given


class PyFuncError(RuntimeError):
    """A py_func's Python function failed or returned something unusable."""


# -- the kernel --------------------------------------------------------------------------------
@py_func.def_op_kernel
def bind_py_func(op) -> Callable:
    """The kernel of one py_func op: calls its function and checks the results against the
    op's outputs (count, None where a value is needed, array-ness)."""
    call = _Call(op)
    return call.run


class _Call:
    def __init__(self, op):
        self.name = op.attrs.get("forward_callable_name") or ""
        self.callable_id = op.attrs.get("forward_callable_id", 0)
        is_backward = bool(int(op.attrs.get("op_role", 0)) & ROLE_BACKWARD)
        self.what = "the backward function of a py_func" if is_backward else "py_func"
        self.out_names = list(op.output("Out"))
        self.site = getattr(op, "site", None) or "<unknown>"
        self.declared = [_declared(op, n) for n in self.out_names]
        self.op = op
        self.check_shapes = any(d is not None for d in self.declared) and op not in _WARNED_OPS
        self.entry = None
        try:
            self.entry = self._resolve()
        except PyFuncError:
            pass                      # raised when the op runs, with the op's context

    def _resolve(self):
        if not self.name:
            raise PyFuncError(
                f"{self.what} op has forward_callable_id={self.callable_id} but no "
                "forward_callable_name. Integer callable ids only mean something in the "
                "process that built the program (e.g. a program saved by PaddlePaddle), so "
                "pyfluid never runs a function by id. Rebuild the op with "
                "pyfluid.static.py_func, or set its forward_callable_name attribute to a "
                "name given by pyfluid.static.register_py_func(fn).")
        try:
            return lookup(self.name)
        except PyFuncNotRegisteredError as exc:
            raise PyFuncError(str(exc)) from None

    def run(self, inputs: list) -> Any:
        entry = self.entry or self._resolve()
        self.entry = entry
        args = [_read_only(v) for v in inputs] if entry.takes_inputs else []
        try:
            result = entry.fn(*args)
        except Exception as exc:
            raise PyFuncError(self._raised(exc)) from exc
        return self._outputs(result)

    def _raised(self, exc: Exception) -> str:
        text = (f"{self.what}: the Python function {self.name!r} raised "
                f"{type(exc).__name__}: {exc} (its traceback is chained below)")
        if "read-only" in str(exc):
            text += (". Its inputs are read-only arrays: copy one with np.array(x) before "
                     "changing it in place")
        return text

    def _outputs(self, result: Any) -> Any:
        items = tuple(result) if isinstance(result, (list, tuple)) else (result,)
        n_out = len(self.out_names)
        if len(items) != n_out and not (n_out == 0 and len(items) == 1 and items[0] is None):
            self._count_error(items, n_out)
        if n_out == 0:
            return None
        values = []
        for i, (name, item) in enumerate(zip(self.out_names, items)):
            if name == EMPTY_VAR:
                values.append(None)
                continue
            values.append(self._as_array(i, name, item))
        if self.check_shapes:
            self._warn_on_mismatch(values)
        return values

    def _count_error(self, items: tuple, n_out: int) -> None:
        if len(items) != 1:
            paddle = f"But ret_num is {len(items)}"
        elif n_out != 0:
            paddle = f"But out_num is {n_out}"
        else:
            paddle = "But ret[0] is not None"
        raise PyFuncError(
            f"{self.what}: the Python function {self.name!r} returned {len(items)} value(s) "
            f"but the op has {n_out} output(s) {self.out_names}. Return one value per output: "
            "None when there are none, one array for one output (a list or tuple means "
            f"several outputs), a tuple of arrays for several. [{_NO_RETURN}{paddle}]")

    def _as_array(self, i: int, name: str, item: Any) -> np.ndarray:
        if type(item) is np.ndarray:
            return item
        if item is None:
            need = (f"{name} is a gradient the backward pass needs" if name.endswith("@GRAD")
                    else f"output {name} needs a value")
            raise PyFuncError(
                f"{self.what}: the Python function {self.name!r} returned None for output "
                f"#{i} ({need}). Return an array there (None is only allowed for inputs "
                f"that get no gradient). [Output tensor {i} should not be nullptr]")
        array = getattr(item, "_array", None)          # LoDTensor or eager Tensor
        if isinstance(array, np.ndarray):
            return array
        try:
            array = np.asarray(item)
        except Exception:
            array = None
        if array is None or array.dtype.kind in "OSUV":
            raise PyFuncError(
                f"{self.what}: the Python function {self.name!r} returned "
                f"{type(item).__name__} for output #{i} ({name}), which is not an array. "
                "Return a numpy array (or a framework tensor). [py::cast to phi::DenseTensor "
                f"error. The {i}-th output exception is phi::DenseTensor]")
        return array

    def _warn_on_mismatch(self, values: list) -> None:
        for name, declared, value in zip(self.out_names, self.declared, values):
            if declared is None or value is None:
                continue
            shape, dtype = declared
            bad_shape = shape is not None and (len(shape) != value.ndim or any(
                d >= 0 and d != v for d, v in zip(shape, value.shape)))
            bad_dtype = dtype is not None and value.dtype != dtype
            if bad_shape or bad_dtype:
                self.check_shapes = False
                _WARNED_OPS.add(self.op)
                warnings.warn(
                    f"{self.what} {self.name!r}: output '{name}' was declared as "
                    f"{_describe(shape, dtype)} but the function returned "
                    f"{_describe(value.shape, value.dtype)}. As in Paddle the returned array is "
                    f"used as is; fix the declaration or the function (op built at {self.site}; "
                    "warned once per op).", RuntimeWarning, stacklevel=1)
                return


def _declared(op, name: str):
    if name == EMPTY_VAR:
        return None
    var = op.block._find_var_recursive(name)
    if var is None or var._shape is None:
        return None
    dtype = None if var._dtype is None else np.dtype(to_numpy_dtype(var._dtype))
    return tuple(var._shape), dtype


def _describe(shape, dtype) -> str:
    dims = "?" if shape is None else list(shape)
    return f"{dims} {dtype}" if dtype is not None else f"{dims}"


def _read_only(value: Any) -> Any:
    if value is None:
        return None
    view = np.asarray(value).view()
    view.flags.writeable = False
    return view


# -- the grad maker (spec §3.3) ----------------------------------------------------------------
@py_func.def_grad_maker
def make_py_func_grad(op, no_grad_names: set) -> list[dict]:
    """Another py_func running the backward function: X = non-skipped X, non-skipped Out,
    then every Out@GRAD; Out = one gradient per X (@EMPTY@ where none is wanted)."""
    backward_id = op.attrs.get("backward_callable_id", -1)
    backward_name = op.attrs.get("backward_callable_name") or ""
    if backward_id < 0 and not backward_name:
        return []
    skip = set(op.attrs.get("backward_skip_vars") or ())
    xs, outs = op.input("X"), op.output("Out")
    grads = [EMPTY_VAR if grad_name(x) in no_grad_names else grad_name(x) for x in xs]
    if all(g == EMPTY_VAR for g in grads):
        return []
    inputs = ([x for x in xs if x not in skip] + [o for o in outs if o not in skip]
              + [grad_name(o) for o in outs])
    attrs = {"forward_callable_id": backward_id, "backward_callable_id": -1,
             "backward_skip_vars": [], "forward_callable_name": backward_name,
             "backward_callable_name": ""}
    return [{"type": "py_func", "inputs": {"X": inputs}, "outputs": {"Out": grads},
             "attrs": attrs}]
