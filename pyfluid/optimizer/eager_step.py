"""``Optimizer.step()`` in eager mode: every parameter with a gradient updated in place by its
update op's kernel, the one the static Executor runs (the in-place kernel where there is one).

The step is one pass over the parameters: the kernel, where each of its inputs comes from and
where each output goes are resolved once per op type (``_layout``), the learning-rate array
once per (rate multiplier, dtype) per step; per parameter only the arrays are gathered. The
numbers are those of one update op per parameter, bit for bit."""
from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from ..ops.registry import get_op
from . import param_groups

# where an update op's input comes from (an index >= _ACC is the accumulator's position)
_PARAM, _GRAD, _LR, _NONE, _ACC = 0, 1, 2, 3, 4


def step(opt: Any) -> None:
    """Update every eager parameter of ``opt`` that has a gradient."""
    if opt._parameter_list is None:
        raise RuntimeError(f"{type(opt).__name__}.step() needs `parameters`: build the "
                           "optimizer with parameters=model.parameters() in dygraph mode")
    everything = opt._eager_params_grads()
    opt._check_eager_grads(everything)
    if opt._param_groups is None:
        update_group(opt, everything, opt._grad_clip)
        return
    for group in opt._param_groups:
        params_grads = [(p, p.grad) for p in group["params"]
                        if not p.stop_gradient and p.grad is not None]
        with param_groups.options(opt, group):
            update_group(opt, params_grads, group.get("grad_clip", opt._grad_clip))


def update_group(opt: Any, params_grads: list, grad_clip: Any) -> None:
    """Clip, regularize and update ``params_grads`` (one parameter group)."""
    if grad_clip is not None:
        params_grads = grad_clip(params_grads)
    lr = opt.get_lr()
    kernel, pick, single, param_out, acc_outs, defaults = _layout(
        opt.type, tuple(opt._accumulator_slots))
    prefix = f"{opt._name}_" if opt._name is not None else ""
    stores = [opt._accumulators[prefix + acc] for acc in opt._accumulator_slots.values()]
    lr_arrays: dict = {}
    for param, grad in params_grads:
        grad_array = grad._array if hasattr(grad, "_array") else np.asarray(grad)
        regularizer = opt._regularizer_of(param)
        if regularizer is not None:
            grad_array = grad_array + regularizer._numpy(param._array)
        name, array = param._name or param.name, param._array
        if name not in opt._eager_params:
            _create_accumulators(opt, param, prefix)
        options = getattr(param, "optimize_attr", None)
        scale = 1.0 if options is None else options.get("learning_rate", 1.0)
        rate = lr_arrays.get((scale, array.dtype))
        if rate is None:
            rate = lr_arrays[(scale, array.dtype)] = np.array([lr * scale], dtype=array.dtype)
        values = (array, grad_array, rate, None, *[store[name] for store in stores]) \
            if stores else (array, grad_array, rate, None)
        if defaults:
            attrs = opt._op_attrs(param)
            result = kernel(*pick(values), **{k: attrs.get(k, d) for k, d in defaults})
        else:
            result = kernel(*pick(values))
        if single:
            result = (result,)
        if result[param_out] is array:
            param._version += 1                 # updated in place: bump its inplace version
        else:
            param._array = result[param_out]
        for store, index in zip(stores, acc_outs):
            store[name] = result[index]


def _create_accumulators(opt: Any, param: Any, prefix: str) -> None:
    """The accumulators of ``param``, filled with their initial values (at its first step)."""
    opt._eager_params.add(param.name)
    array = param._array
    dtype = np.float32 if array.dtype == np.float16 else array.dtype
    for acc, fill, shape, _ in opt._accumulator_init(param):
        opt._accumulators[prefix + acc][param.name] = np.full(
            array.shape if shape is None else shape, fill, dtype=dtype)


@functools.lru_cache(maxsize=None)
def _layout(op_type: str, accumulator_slots: tuple) -> tuple:
    """(kernel, the picker of its arguments from (param, grad, learning rate, None,
    accumulators...), whether it has one output, ParamOut's output index,
    per accumulator its output index, (attr, default) pairs) of an update op: its in-place
    kernel where it has one (it writes into the input buffers), else its kernel."""
    opdef = get_op(op_type)
    kernel = opdef.inplace_kernel or opdef.kernel
    fixed = {"Param": _PARAM, "Grad": _GRAD, "LearningRate": _LR}
    sources = tuple(fixed[s.name] if s.name in fixed else
                    _ACC + accumulator_slots.index(s.name) if s.name in accumulator_slots else
                    _NONE for s in opdef.inputs)
    outs = [s.name for s in opdef.outputs]
    acc_outs = tuple(outs.index(f"{slot}Out") for slot in accumulator_slots)
    defaults = tuple((k, opdef.attrs[k].default) for k in opdef.kernel_attrs)
    pick = operator.itemgetter(*sources)        # update ops have several inputs: a tuple
    return kernel, pick, len(outs) == 1, outs.index("ParamOut"), acc_outs, defaults
