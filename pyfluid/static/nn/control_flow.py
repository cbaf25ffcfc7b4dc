"""``paddle.static.nn`` control flow: ``cond``, ``while_loop``, ``case``, ``switch_case`` (and
``control_flow.While`` / ``ConditionalBlock``), built as Paddle 2.6 builds them.

In static mode each branch or loop body becomes a sub-block run by a ``conditional_block`` or
``while`` op (pyfluid/static/block_guards.py); ``cond`` merges its branches' results with
``select_input``. In dynamic mode the same calls run plain Python: only the chosen branch is
called, and a loop runs while its condition holds. docs/control_flow.md tells the rest.
"""
from __future__ import annotations

import warnings
from functools import partial, reduce
from typing import Any, Callable, Sequence

from ..._dispatch import TENSOR_TYPES
from ...engine.tensor import Tensor
from ...framework.context import in_dynamic_mode
from ...framework.layer_helper import LayerHelper, check_dtype, check_type
from ...framework.variable import Variable
from ...ops.types import VarType
from ..block_guards import ConditionalBlock, While
from ..nest import assert_same_structure, flatten, map_structure, pack_sequence_as

_BUILTINS = (bool, float, int)

__all__ = ["ConditionalBlock", "While", "case", "cond", "select_input", "select_output",
           "switch_case", "while_loop"]


def _check_variable_and_dtype(value: Any, name: str, dtypes: list[str], api: str) -> None:
    check_type(value, name, Variable, api)
    check_dtype(value.dtype, name, dtypes, api)


def _as_sequence(value: Any) -> list:
    """A branch's results as a list (a dict or a single value counts as one result)."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


# -- cond ---------------------------------------------------------------------------------------
def cond(pred: Any, true_fn: Callable | None = None, false_fn: Callable | None = None,
         name: str | None = None, return_names: Sequence[str] | None = None) -> Any:
    """``true_fn()`` if ``pred`` (a one-element bool Tensor) is true, else ``false_fn()``;
    a missing fn counts as one returning None. Both must return the same structure."""
    if in_dynamic_mode() and not isinstance(pred, Variable):
        return _eager_cond(pred, true_fn, false_fn)
    _check_variable_and_dtype(pred, "pred", ["bool"], "base.layers.cond")
    check_type(name, "name", (str, type(None)), "base.layers.cond")
    helper = LayerHelper("cond", name=name)
    true_output = false_output = None
    if true_fn is not None:
        _check_callable(true_fn, "true_fn")
        with ConditionalBlock([pred], is_scalar_condition=True).block():
            result = true_fn()
            if result is not None:
                true_output = map_structure(partial(_copy_to_parent, helper), result)
    if false_fn is not None:
        _check_callable(false_fn, "false_fn")
        from ...tensor.logic import logical_not
        with ConditionalBlock([logical_not(pred)], is_scalar_condition=True).block():
            result = false_fn()
            if result is not None:
                false_output = map_structure(partial(_copy_to_parent, helper), result)
    if true_output is None and false_output is None:
        return None
    if true_output is None or false_output is None:
        which = ("true_fn returns None while false_fn returns non-None" if true_output is None
                 else "true_fn returns non-None while false_fn returns None")
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: {which}")
    trues, falses = _as_sequence(true_output), _as_sequence(false_output)
    if len(trues) != len(falses):
        raise ValueError(f"true fn returns {len(trues)} vars, but false fn returns "
                         f"{len(falses)} vars, which is not equals")
    names = list(return_names) if return_names is not None else ["no name"] * len(trues)
    for t, f, ret_name in zip(trues, falses, names):
        try:
            assert_same_structure(t, f, check_types=False)
        except ValueError as exc:
            raise ValueError(f"Incompatible return values of `{ret_name}` in true_fn and "
                             f"false_fn in cond: {exc}") from None
    from ...tensor.manipulation import cast
    mask = cast(pred, "int32")
    merged = [_merge(f, t, mask) for f, t in zip(flatten(false_output), flatten(true_output))]
    return pack_sequence_as(false_output, merged)


def _check_callable(fn: Any, what: str) -> None:
    if not callable(fn):
        raise TypeError(f"The {what} in cond must be callable, but received "
                        f"{type(fn).__name__}")


def _eager_cond(pred: Any, true_fn: Callable | None, false_fn: Callable | None) -> Any:
    assert isinstance(pred, Tensor), "The pred in cond must be Variable"
    assert pred.size == 1, "condition input's numel should be 1"
    fn, what = (true_fn, "true_fn") if pred.item() else (false_fn, "false_fn")
    if fn is None:
        return None
    _check_callable(fn, what)
    return fn()


def _copy_to_parent(helper: LayerHelper, var: Any) -> Any:
    """A branch result copied into a new variable of the enclosing block (arrays of the
    enclosing block are returned as they are: the branch wrote them in place)."""
    if not isinstance(var, Variable):
        return var
    program = helper.main_program
    parent = program.block(program.current_block().parent_idx)
    if var.type == VarType.LOD_TENSOR_ARRAY and parent._find_var_recursive(var.name):
        return var
    copy = parent.create_var(dtype=var.dtype, shape=var.shape, type=var.type)
    from ...tensor.creation import assign
    assign(var, copy)
    return copy


def _merge(false_var: Any, true_var: Any, mask: Variable) -> Any:
    """One result of ``cond``: ``select_input([false, true], mask)``; equal Python values
    stay Python values, other Python values become constants first."""
    if not isinstance(false_var, Variable) or not isinstance(true_var, Variable):
        if isinstance(false_var, _BUILTINS) and isinstance(false_var, type(true_var)) \
                and false_var == true_var:
            return false_var
        if not all(isinstance(v, (Variable,) + _BUILTINS) for v in (false_var, true_var)):
            raise TypeError("Unsupported return type of true_fn and false_fn in cond: "
                            f"false_var returned by false_fn is '{type(false_var)}' and "
                            f"true_var of true_fn is '{type(true_var)}'")
        if isinstance(false_var, Variable) or isinstance(true_var, Variable):
            warnings.warn("Return results from different branches in cond are not same type: "
                          f"false_var returned by false_fn is '{type(false_var)}' and true_var "
                          f"of true_fn is '{type(true_var)}'", stacklevel=3)
        false_var, true_var = _to_variable(false_var), _to_variable(true_var)
    return select_input([false_var, true_var], mask)


def _to_variable(value: Any) -> Variable:
    if isinstance(value, Variable):
        return value
    from ...tensor.creation import full
    dtype = "bool" if isinstance(value, bool) else "float64" if isinstance(value, float) \
        else "int64"
    return full([], value, dtype)


def select_input(inputs: Sequence[Variable], mask: Variable) -> Variable:
    """``inputs[mask]``: the output takes the second input's dtype and type; a dim the two
    inputs disagree on is unknown (-1)."""
    check_type(inputs, "inputs", (list, tuple), "select_input")
    _check_variable_and_dtype(mask, "mask", ["int32"], "select_input")
    first, second = inputs[0].shape, inputs[1].shape
    if len(first) != len(second):
        warnings.warn("the input shapes of select_input should have the same rank, but get "
                      f"{first}, {second}", stacklevel=3)
        shape = second
    else:
        shape = [a if a == b else -1 for a, b in zip(first, second)]
    helper = LayerHelper("select_input")
    out = helper.create_variable(dtype=inputs[1].dtype, shape=shape, type=inputs[1].type)
    helper.append_op(type="select_input", inputs={"X": list(inputs), "Mask": mask},
                     outputs={"Out": out})
    return out


def select_output(input: Variable, outputs: Sequence[Variable], mask: Variable):
    """Copy ``input`` into ``outputs[mask]``; the other outputs keep their values."""
    check_type(input, "input", Variable, "select_output")
    _check_variable_and_dtype(mask, "mask", ["int32"], "select_output")
    check_type(outputs, "outputs", (list, tuple), "select_output")
    LayerHelper("select_output").append_op(type="select_output",
                                           inputs={"X": input, "Mask": mask},
                                           outputs={"Out": list(outputs)})
    return outputs


# -- while_loop ---------------------------------------------------------------------------------
def while_loop(cond: Callable, body: Callable, loop_vars: Sequence, is_test: bool = False,
               name: str | None = None) -> Sequence:
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds; returns
    ``loop_vars`` (in static mode the same Variables, which the loop updates in place)."""
    if not callable(cond):
        raise TypeError("cond in while_loop should be callable")
    if not callable(body):
        raise TypeError("body in while_loop should be callable")
    check_type(loop_vars, "loop_vars", (list, tuple), "static.nn.while_loop")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars in while_loop should not be empty")
    pre_cond = cond(*loop_vars)
    dynamic = in_dynamic_mode() and not isinstance(pre_cond, Variable)
    if not dynamic:
        _check_variable_and_dtype(pre_cond, "var of cond returned", ["bool"],
                                  "static.nn.while_loop")
    if reduce(lambda a, b: a * b, pre_cond.shape, 1) != 1:
        raise TypeError("the shape of the variable returned by cond should be [1],"
                        f"but given shape as {list(pre_cond.shape)}.")
    if dynamic:
        return _eager_while_loop(cond, body, loop_vars, pre_cond)
    loop = While(pre_cond, is_test, name)
    with loop.block():
        outputs = body(*loop_vars)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        try:
            if len(outputs) != len(loop_vars):
                raise ValueError("The length of loop_vars should be the same.")
            assert_same_structure(outputs, list(loop_vars), check_types=False)
        except ValueError as exc:
            raise ValueError("body in while_loop should return the same arity (length and "
                             f"structure) as loop_vars: {exc}") from None
        now_cond = cond(*outputs)
        map_structure(_carry, outputs, list(loop_vars))
        from ...tensor.creation import assign
        assign(now_cond, pre_cond)
    return loop_vars


def _eager_while_loop(cond: Callable, body: Callable, loop_vars: Sequence, pre_cond) -> Sequence:
    now = pre_cond.item()
    while now:
        outputs = body(*loop_vars)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if len(outputs) != len(loop_vars):
            raise ValueError("body in while_loop should return the same arity (length and "
                             "structure) and types as loop_vars")
        now = cond(*outputs).item()
        map_structure(_carry, outputs, list(loop_vars))
    return loop_vars


def _carry(value: Any, loop_var: Any) -> None:
    """Write a body result into its loop variable (Paddle's assign_skip_lod_tensor_array)."""
    from ...tensor.creation import assign
    if not isinstance(value, TENSOR_TYPES):
        if isinstance(loop_var, TENSOR_TYPES) and isinstance(value, _BUILTINS):
            assign(value, loop_var)
        return
    if isinstance(value, Variable) and value.type == VarType.LOD_TENSOR_ARRAY:
        program = value.block.program
        parent = program.block(program.current_block().parent_idx)
        if parent._find_var_recursive(value.name) is None:    # an array made in the body
            assign(value, loop_var)
        return
    if isinstance(value, Variable) and isinstance(loop_var, Variable) and _shape_differs(
            value, loop_var):
        warnings.warn(f"In dy2static mode, we attemp to assign a variable with shape "
                      f"{value.shape} into a variable with shape{loop_var.shape}, which is "
                      "not always right.", stacklevel=4)
    assign(value, loop_var)


def _shape_differs(x: Variable, y: Variable) -> bool:
    return len(x.shape) != len(y.shape) or any(
        a != b and -1 not in (a, b) for a, b in zip(x.shape, y.shape))


# -- case / switch_case -------------------------------------------------------------------------
def _type_error(what: str, arg: str, api: str, right: Any, got: Any) -> TypeError:
    return TypeError(f"{what} of '{arg}' in {api} must be {right}, but received: {got}.")


def case(pred_fn_pairs: Sequence, default: Callable | None = None,
         name: str | None = None) -> Any:
    """The fn of the first pair whose pred is true (an if/elif chain), else ``default()``
    (without a default, the last pair's fn)."""
    check_type(pred_fn_pairs, "pred_fn_pairs", (list, tuple), "case")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple):
            raise _type_error("The elements' type", "pred_fn_pairs", "case", tuple, type(pair))
        if len(pair) != 2:
            raise _type_error("The tuple's size", "pred_fn_pairs", "case", "2",
                              f"{len(pair)}-tuple")
        pred, fn = pair
        if not isinstance(pred, TENSOR_TYPES):
            raise _type_error("The pred's type", "pred_fn_pairs", "case", "boolean Variable",
                              type(pred))
        if not callable(fn):
            raise TypeError(f"The fn for {pred.name} of pred_fn_pairs in Op(case) must be "
                            "callable.")
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs.pop()[1]
    elif not callable(default):
        raise TypeError("The default in Op(case) must be callable.")
    chain = default
    for pred, fn in reversed(pairs):          # the first pair's cond is the outermost
        chain = partial(cond, pred=pred, true_fn=fn, false_fn=chain)
    return chain()


def switch_case(branch_index: Any, branch_fns: Any, default: Callable | None = None,
                name: str | None = None) -> Any:
    """The fn whose key equals ``branch_index`` (an int Tensor); otherwise ``default()``, or
    the fn of the largest key. ``branch_fns``: a list of fns, of (key, fn) pairs, or a dict."""
    from ...tensor.creation import full
    from ...tensor.logic import equal
    from ...tensor.manipulation import cast
    if not (in_dynamic_mode() and isinstance(branch_index, Tensor)):
        _check_variable_and_dtype(branch_index, "branch_index", ["uint8", "int32", "int64"],
                                  "static.nn.switch_case")
    if branch_index.dtype != VarType.INT64:
        branch_index = cast(branch_index, "int64")
    check_type(branch_fns, "branch_fns", (list, tuple, dict), "switch_case")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    keys = []
    for pair in pairs:
        if not isinstance(pair, tuple):
            raise _type_error("The elements' type", "branch_fns", "switch_case", tuple,
                              type(branch_fns))
        if len(pair) != 2:
            raise _type_error("The tuple's size", "branch_fns", "switch_case", "2",
                              f"{len(pair)}-tuple")
        key, fn = pair
        if not isinstance(key, int):
            raise _type_error("The key's type", "branch_fns", "switch_case", int, type(key))
        if key in keys:
            raise ValueError(f"The key in 'branch_fns' must be unique, but '{key}' appears "
                             "more than once.")
        keys.append(key)
        if not callable(fn):
            raise _type_error(f"The type of function for key {key}", "branch_fns",
                              "switch_case", "callable", type(fn))
    if default is None:
        ordered = sorted(pairs, key=lambda p: p[0])
        default, pairs = ordered[-1][1], ordered[:-1]
    elif not callable(default):
        raise TypeError("The default in Op(case) must be callable.")
    preds = [(equal(branch_index, full([1], key, "int64")), fn) for key, fn in pairs]
    chain = default
    for pred, fn in preds:                    # the last pair's cond is the outermost
        chain = partial(cond, pred=pred, true_fn=fn, false_fn=chain)
    return chain()
