"""Paddle's functional tensor API (``paddle.matmul``, ``paddle.tanh``, ...)."""
from __future__ import annotations

from typing import Any, Sequence

from ._dispatch import _has_static, apply_op
from .framework.context import in_dynamic_mode
from .framework.variable import Variable
from .framework import unique_name
from .ops.types import convert_dtype


def _unary(op_type: str):
    def fn(x, name: str | None = None):
        return apply_op(op_type, {"X": x}, name=name)
    fn.__name__ = op_type
    fn.__doc__ = f"Elementwise ``{op_type}`` of ``x``."
    return fn


tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
relu = _unary("relu")
square = _unary("square")
sqrt = _unary("sqrt")
exp = _unary("exp")
log = _unary("log")
abs = _unary("abs")  # noqa: A001  (Paddle's name)


def _binary(op_type: str, doc: str):
    def fn(x, y, name: str | None = None):
        return elementwise_api(op_type, x, y, name)
    fn.__name__ = op_type.replace("elementwise_", "")
    fn.__doc__ = doc
    return fn


def elementwise_api(op_type: str, x, y, name: str | None = None, out=None):
    """Paddle's ``_elementwise_op``: in static mode the output is named exactly ``name``, or
    ``<op_type>_<n>`` (its LayerHelper's own name, no ``.tmp``) unless ``out`` is given."""
    inputs = {"X": x, "Y": y}
    if in_dynamic_mode() and not _has_static(inputs):
        return apply_op(op_type, inputs, {"axis": -1})
    if out is None:
        block = (x if isinstance(x, Variable) else y).block.program.current_block()
        out = block.create_var(name=name or unique_name.generate(op_type), dtype=x.dtype)
    apply_op(op_type, inputs, {"axis": -1}, outputs={"Out": out})
    return out


add = _binary("elementwise_add", "``x + y`` with broadcasting.")
subtract = _binary("elementwise_sub", "``x - y`` with broadcasting.")
multiply = _binary("elementwise_mul", "``x * y`` with broadcasting.")
divide = _binary("elementwise_div", "``x / y`` with broadcasting.")
maximum = _binary("elementwise_max", "Elementwise maximum with broadcasting.")
minimum = _binary("elementwise_min", "Elementwise minimum with broadcasting.")


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, name: str | None = None):
    return apply_op("matmul_v2", {"X": x, "Y": y},
                    {"trans_x": transpose_x, "trans_y": transpose_y}, name=name)


def _reduce(op_type: str, x, axis, keepdim: bool, name: str | None, layer: str,
            flag_all: bool):
    """Paddle 2.6's reduce attrs: ``dim`` lists the axes ([] for all of them); mean also sets
    ``reduce_all`` when every axis is reduced, sum never does."""
    axes = [] if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]
    ndim = len(x.shape)
    reduce_all = flag_all and (not axes or len(axes) == ndim)
    return apply_op(op_type, {"X": x}, {"dim": axes, "keep_dim": keepdim,
                                        "reduce_all": reduce_all}, name=name, layer=layer)


def mean(x, axis=None, keepdim: bool = False, name: str | None = None):
    return _reduce("reduce_mean", x, axis, keepdim, name, "mean", flag_all=True)


def sum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None):
    return _reduce("reduce_sum", x, axis, keepdim, name, "sum", flag_all=False)


def scale(x, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: str | None = None, name: str | None = None):
    out = apply_op("scale", {"X": x}, {"scale": float(scale), "bias": float(bias),
                                       "bias_after_scale": bias_after_scale}, name=name)
    return apply_op(act, {"X": out}) if act else out


def reshape(x, shape: Sequence[int], name: str | None = None):
    from .framework.variable import Variable
    if isinstance(x, Variable):
        block = x.block.program.current_block()
        prefix = name or unique_name.generate("reshape2")     # Paddle: reshape2_<n>.tmp_0/1
        out, xshape = (block.create_var(name=unique_name.generate_with_ignorable_key(
            prefix + ".tmp"), stop_gradient=stop) for stop in (False, True))
        apply_op("reshape2", {"X": x}, {"shape": list(shape)}, outputs={"Out": out,
                                                                        "XShape": xshape})
        return out
    return apply_op("reshape2", {"X": x}, {"shape": list(shape)}, name=name)[0]


def transpose(x, perm: Sequence[int], name: str | None = None):
    out = apply_op("transpose2", {"X": x}, {"axis": list(perm)}, name=name, layer="transpose")
    return out[0] if isinstance(out, tuple) else out


def concat(x: Sequence[Any], axis: int = 0, name: str | None = None):
    return apply_op("concat", {"X": list(x)}, {"axis": axis}, name=name)


def add_n(inputs, name: str | None = None):
    return apply_op("sum", {"X": list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]},
                    name=name)


def cast(x, dtype):
    return apply_op("cast", {"X": x}, {"in_dtype": int(convert_dtype(x.dtype)),
                                       "out_dtype": int(convert_dtype(dtype))})


def split(x, num_or_sections, axis: int = 0, name: str | None = None) -> list:
    """Split ``x`` along ``axis`` into ``num_or_sections`` equal parts, or parts of the given
    sizes (one may be -1); returns the list of parts."""
    from .framework.variable import Variable
    if isinstance(num_or_sections, int):
        count, attrs = num_or_sections, {"num": num_or_sections, "sections": [], "axis": axis}
    else:
        count = len(num_or_sections)
        attrs = {"num": 0, "sections": [int(s) for s in num_or_sections], "axis": axis}
    if isinstance(x, Variable):
        prefix = name or unique_name.generate("split")
        block = x.block.program.current_block()
        outs = [block.create_var(name=unique_name.generate_with_ignorable_key(prefix + ".tmp"))
                for _ in range(count)]
        apply_op("split", {"X": x}, attrs, outputs={"Out": outs})
        return outs
    return apply_op("split", {"X": x}, attrs)
