"""What a Tensor ``if`` or ``while`` hands back, name by name.

``if``: after both branches are built, each name gets (Paddle's ``select_input`` rules):

* Tensors in both branches -> ``select_input([false, true], cast(pred, int32))``;
* the same Python object in both, or equal numbers -> that value;
* different numbers, or a number and a Tensor -> constants, then ``select_input``;
* a Tensor (or value) in one branch and nothing in the other (the name was first assigned in
  one branch) -> the value of the branch that set it; it is unset when the other branch ran,
  and a program that then reads it fails when it runs instead of computing with garbage;
* lists, tuples and dicts of the same shape -> merged item by item;
* anything else is an error naming the variable and the ``if``.

``while``: the carried names must be Tensors when the loop starts: numbers become constants,
lists of Tensors become tensor arrays, a name the loop assigns first gets a placeholder whose
type the body decides; every Tensor is copied first, since the loop writes its variables in
place and another name may hold the same Tensor.
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

from ...framework.variable import Variable
from ...ops.types import Meta, VarType, convert_dtype
from ...static.nn.control_flow import select_input
from ...tensor.array import create_array
from ...tensor.creation import assign, full
from ...tensor.manipulation import cast
from .values import UndefinedVar, is_variable

_NUMBERS = (bool, int, float)
_FLOATS = (VarType.FP16, VarType.BF16, VarType.FP32, VarType.FP64)


def _describe(value: Any) -> str:
    if is_variable(value):
        return f"a Tensor ({value.name})"
    if isinstance(value, UndefinedVar):
        return "not assigned"
    return f"{type(value).__name__} {value!r}"[:80]


# -- if -----------------------------------------------------------------------------------------
def branch_outputs(values: Any) -> Any:
    """Inside a branch: every Variable copied into a new variable of the enclosing block
    (arrays of the enclosing block are written in place and stay as they are)."""
    if isinstance(values, (list, tuple)):
        return type(values)(branch_outputs(v) for v in values)
    if isinstance(values, dict):
        return {k: branch_outputs(v) for k, v in values.items()}
    if not is_variable(values):
        return values
    program = values.block.program
    parent = program.block(program.current_block().parent_idx)
    if values.type == VarType.LOD_TENSOR_ARRAY and \
            parent._find_var_recursive(values.name) is not None:
        return values
    copy = parent.create_var(dtype=values.dtype, shape=values.shape, type=values.type)
    assign(values, copy)
    if Placeholder.holds(values):
        copy._d2s_placeholder = True
    return _no_grad_unless_float(copy)


def _no_grad_unless_float(var: Variable) -> Variable:
    """Bool and integer values (flags, counters) carry no gradient."""
    if var.type != VarType.LOD_TENSOR_ARRAY and var.dtype not in _FLOATS:
        var.stop_gradient = True
    return var


class _Merger:
    def __init__(self, pred, location: str):
        self.pred = pred
        self.location = location
        self._mask = None

    def mask(self):
        if self._mask is None:                 # one cast shared by every output, as Paddle's
            self._mask = cast(self.pred, "int32")
        return self._mask

    def select(self, true_var, false_var):
        with warnings.catch_warnings():
            if Placeholder.holds(true_var) or Placeholder.holds(false_var):
                # a loop's placeholder has its real shape only once the body is built
                warnings.filterwarnings("ignore", "the input shapes of select_input")
            return _no_grad_unless_float(select_input([false_var, true_var], self.mask()))

    def merge(self, t: Any, f: Any, name: str) -> Any:
        if t is f:
            return t
        if isinstance(t, UndefinedVar) or isinstance(f, UndefinedVar):
            return f if isinstance(t, UndefinedVar) else t
        if is_variable(t) and is_variable(f):
            return self.select(t, f)
        if isinstance(t, _NUMBERS) and isinstance(f, _NUMBERS) and not is_variable(t):
            if type(t) is type(f) and t == f:
                return t
            return self.select(_constant(t, None), _constant(f, None))
        if is_variable(t) and isinstance(f, _NUMBERS):
            return self.select(t, _constant(f, t))
        if is_variable(f) and isinstance(t, _NUMBERS):
            return self.select(_constant(t, f), f)
        if isinstance(t, (list, tuple)) and isinstance(f, (list, tuple)) and len(t) == len(f):
            return type(f)(self.merge(a, b, f"{name}[{i}]") for i, (a, b) in
                           enumerate(zip(t, f)))
        if isinstance(t, dict) and isinstance(f, dict) and t.keys() == f.keys():
            return {k: self.merge(t[k], f[k], f"{name}[{k!r}]") for k in f}
        if type(t) is type(f) and not is_variable(t):
            try:
                if t == f:
                    return f
            except Exception:          # objects whose == is not a plain bool
                pass
        raise TypeError(
            f"`{name}` is {_describe(t)} after the true branch and {_describe(f)} after the "
            f"false branch of the `if` at {self.location}, whose condition is a Tensor. Both "
            "branches are built into the program, so a name they set must be a Tensor (or a "
            "number) in both, or a list/tuple/dict of those with the same length.")


def _constant(value: Any, like: Variable | None) -> Variable:
    """A Python number as a constant Variable (of ``like``'s dtype and rank when given)."""
    if like is not None:
        return full([1] * len(like.shape), value, like.dtype)
    dtype = "bool" if isinstance(value, bool) else "int64" if isinstance(value, int) \
        else "float32"
    return full([], value, dtype)


def merge_branches(pred, results: tuple, names: Sequence[str], location: str) -> tuple:
    true_values, false_values = results
    merger = _Merger(pred, location)
    return tuple(merger.merge(t, f, name) for t, f, name in zip(true_values, false_values,
                                                                 names))


# -- while --------------------------------------------------------------------------------------
class Placeholder:
    """The initial value of a name the loop assigns before it reads it: a [1] float32
    constant whose dtype and shape are set to the body's value once the body is built."""

    def __init__(self):
        self.var = full([1], 0.0, "float32")
        self.var._d2s_placeholder = True
        self.op = self.var.block.ops[-1]

    @staticmethod
    def holds(var: Variable) -> bool:
        return getattr(var, "_d2s_placeholder", False)

    def adopt(self, value: Variable) -> None:
        shape = [d if d >= 0 else 1 for d in value.shape]
        self.var._set_meta(Meta(tuple(value.shape), value.dtype))
        self.var.stop_gradient = value.dtype not in _FLOATS
        self.op._set_attr("dtype", int(convert_dtype(value.dtype)))
        self.op._set_attr("shape", shape)


def carried_values(values: tuple, names: Sequence[str], location: str
                   ) -> tuple[list, dict[int, Placeholder]]:
    """The loop variables, and the placeholders among them by position."""
    out, holders = [], {}
    for value, name in zip(values, names):
        if isinstance(value, UndefinedVar):
            holders[len(out)] = holder = Placeholder()
            out.append(holder.var)
        elif is_variable(value):
            out.append(value if value.type == VarType.LOD_TENSOR_ARRAY else assign(value))
        elif isinstance(value, _NUMBERS):
            out.append(_constant(value, None))
        elif isinstance(value, list) and all(is_variable(v) for v in value):
            dtype = value[0].dtype if value else "float32"
            out.append(create_array(dtype, initialized_list=value))
        else:
            raise TypeError(
                f"`{name}` changes in the `while` loop at {location}, whose condition is a "
                f"Tensor, so it must hold a Tensor, a number or a list of Tensors when the "
                f"loop starts; it holds {_describe(value)}")
    for var in out:
        # the body may give a float loop variable a value that needs a gradient (`s = 0`,
        # then `s = s + x`); its ops are built before that is known, so it may from the start
        if var.type != VarType.LOD_TENSOR_ARRAY:
            var.stop_gradient = var.dtype not in _FLOATS
    return out, holders


def patch_carried(values: tuple, loop_vars: list, holders: dict[int, Placeholder],
                  names: Sequence[str], location: str) -> list:
    """The body's results: placeholders take the type of what the body assigned."""
    out = []
    for index, (value, loop_var, name) in enumerate(zip(values, loop_vars, names)):
        holder = holders.get(index)
        if isinstance(value, UndefinedVar):
            value = loop_var
        elif holder is not None and is_variable(value):
            holder.adopt(value)
        elif not (is_variable(value) or isinstance(value, _NUMBERS)):
            raise TypeError(
                f"`{name}` is {_describe(value)} at the end of the body of the `while` loop at "
                f"{location}, whose condition is a Tensor; a variable the loop carries must "
                "stay a Tensor (or a number)")
        out.append(value)
    return out
