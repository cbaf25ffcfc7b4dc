"""``paddle.static.py_func`` (also ``paddle.static.nn.py_func``): a Python function as an op.

Checks, messages, callable-id order and the return value follow Paddle 2.6
(``python/paddle/static/nn/common.py``, spec §3.1). Beyond Paddle, the op records the
functions' readable names so that programs print them and run in other processes once the
functions are registered there (``register_py_func``); see ``pyfluid.ops.py_func_registry``
and docs/py_func.md.
"""
from __future__ import annotations

from typing import Callable, Sequence, Union

from ..framework.context import default_main_program, in_dynamic_mode
from ..framework.layer_helper import check_type
from ..framework.variable import Variable
from ..ops.py_func_registry import acquire_id, py_func_name, register_py_func

VarOrVars = Union[Variable, Sequence[Variable], None]

__all__ = ["py_func", "py_func_name", "register_py_func"]


def py_func(func: Callable, x: VarOrVars, out: VarOrVars, backward_func: Callable | None = None,
            skip_vars_in_backward_input: VarOrVars = None) -> VarOrVars:
    """Append a ``py_func`` op that calls ``func(*x)`` at run time and writes ``out``.

    ``x``/``out``: None, a Variable, or a list/tuple of them; output variables must be created
    beforehand with name, dtype and shape. ``backward_func`` receives the non-skipped inputs,
    the non-skipped outputs and the gradients of all outputs, and returns one gradient per input
    (None for inputs without one). Returns ``out`` unchanged."""
    assert not in_dynamic_mode(), (
        "In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and 'py_func()' is "
        "only supported in static graph mode. So if you want to use this api, please call "
        "'paddle.enable_static()' before this api to enter static graph mode.")
    return append_py_func(func, x, out, backward_func, skip_vars_in_backward_input)


def append_py_func(func: Callable, x: VarOrVars, out: VarOrVars,
                   backward_func: Callable | None = None,
                   skip_vars_in_backward_input: VarOrVars = None) -> VarOrVars:
    """``py_func`` without the mode check: the op goes to the current block of the default
    main program (``fluid.layers.py_func``, static by nature in the fluid era)."""
    check_type(x, "X", (list, tuple, Variable, type(None)), "py_func")
    x_list = [] if x is None else [x] if isinstance(x, Variable) else list(x)
    check_type(out, "Out", (list, tuple, Variable, type(None)), "py_func")
    out_list = [] if out is None else [out] if isinstance(out, Variable) else list(out)

    forward_id, forward_name = acquire_id(func)
    backward_id, backward_name = (acquire_id(backward_func) if backward_func is not None
                                  else (-1, ""))
    _check_vars(x_list, "X")
    _check_vars(out_list, "Out")
    for each_out in out_list:
        if len(each_out.shape) == 0:
            raise ValueError("Output shapes of py_func should be provided by users manually")

    skip_names: list[str] = []
    if backward_func is not None and skip_vars_in_backward_input is not None:
        skip = skip_vars_in_backward_input
        skip = [skip] if isinstance(skip, Variable) else list(skip)
        forward_names = [v.name for v in x_list + out_list]
        for v in skip:
            if getattr(v, "name", None) not in forward_names:
                raise ValueError(f"Tensor {getattr(v, 'name', v)} is not found in forward "
                                 "inputs and outputs")
        skip_names = [n for n in dict.fromkeys(forward_names) if n in {v.name for v in skip}]

    default_main_program().current_block().append_op(
        type="py_func", inputs={"X": x_list}, outputs={"Out": out_list},
        attrs={"forward_callable_id": forward_id, "backward_callable_id": backward_id,
               "backward_skip_vars": skip_names, "forward_callable_name": forward_name,
               "backward_callable_name": backward_name})
    return out


def _check_vars(values: list, slot: str) -> None:
    for i, v in enumerate(values):
        if not isinstance(v, Variable):
            hint = (" Create each output first with "
                    "block.create_var(name=..., dtype=..., shape=...)." if slot == "Out" else "")
            check_type(v, f"{slot}[{i}]", Variable, "py_func", hint)
