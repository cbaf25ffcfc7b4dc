"""Writing hooks for the legacy ops that are not one renamed PIR op: parameters, feeds and
fetches, constants, reductions, the ops whose PIR name depends on an attribute (split,
tril_triu), ``mul``/``fc`` (matmul with reshapes), ``select_input`` and tensor arrays."""
from __future__ import annotations

from ...ops.types import VarType
from .op_table import BY_LEGACY, SPECS
from .schema import TENSOR, Dtype, Place, PirType, encode_type

_VALUE_SLOTS = {VarType.FP32: ("fp32_values", "f32s"), VarType.FP64: ("fp64_values", "f64s"),
                VarType.INT32: ("int32_values", "i32s"), VarType.INT64: ("int64_values", "i64s"),
                VarType.BOOL: ("bool_values", "bs")}


def _generic(rs, op, block, pir_name: str, legacy: dict | None = None,
             types: list | None = None) -> list[int]:
    from .raise_ import raise_generic
    return raise_generic(rs, op, block, SPECS[pir_name], legacy, types)


def _out(rs, op, block, slot: str = "Out") -> tuple[str, PirType]:
    name = op.output(slot)[0]
    return name, rs.var_type(name, block)


# -- program structure --------------------------------------------------------------------------
def parameters(rs, variables, block) -> None:
    """``builtin.parameter`` ops for the persistables, which the .pdiparams holds sorted by
    name in both formats: ``A = [is_distributed, is_parameter, need_clip, name]``,
    ``OA = [persistable, stop_gradient, trainable]``."""
    for var in variables:
        ptype = rs.var_type(var.name, block)
        vid = rs.new_value(ptype)
        trainable = bool(getattr(var, "trainable", False))
        rs.current.append({"#": "p", "A": [0, 1, 1, var.name], "DA": [],
                           "O": {"%": vid, "TT": encode_type(ptype)},
                           "OA": [1, int(not trainable), int(trainable)], "QA": []})
        rs.bind(var.name, vid)


def feed(rs, op, block) -> None:
    name, ptype = _out(rs, op, block)
    vid, = rs.op("pd_op.data", [], [ptype],
                 [("name", "s", name), ("shape", "ia", list(ptype.dims)),
                  ("dtype", "dtype", ptype.dtype), ("place", "place", Place())],
                 result_attrs={"stop_gradient": [False]})
    rs.bind(name, vid)


def fetch(rs, op, block) -> None:
    name = op.input("X")[0]
    rs.op("pd_op.fetch", [rs.value(name, op)], [rs.var_type(name, block)],
          [("name", "s", name), ("col", "i32", op.attr("col"))],
          result_attrs={"persistable": [True], "stop_gradient": [False]})


# -- constants ------------------------------------------------------------------------------------
def fill_constant(rs, op, block) -> None:
    name, ptype = _out(rs, op, block)
    dtype = VarType(op.attr("dtype"))
    text = op.attr("str_value") or ""
    value = float(text) if text else float(op.attr("value") or 0.0)
    value_tensor = op.input("ValueTensor")
    shape_tensor, shape_list = op.input("ShapeTensor"), op.input("ShapeTensorList")
    if value_tensor or shape_tensor or shape_list:
        value_id = (rs.value(value_tensor[0], op) if value_tensor else
                    rs.op("pd_op.full", [], [PirType(TENSOR, dtype, (1,))],
                          [("shape", "ia", [1]), ("value", "f64", value), ("dtype", "dtype", dtype),
                           ("place", "place", Place(1))])[0])
        shape_id = (rs.value(shape_tensor[0], op) if shape_tensor else
                    rs.combine([rs.value(n, op) for n in shape_list]) if shape_list else
                    rs.constant("ia", op.attr("shape")))
        vid, = rs.op("pd_op.full_with_tensor", [value_id, shape_id], [ptype],
                     [("dtype", "dtype", dtype)])
    else:
        vid, = rs.op("pd_op.full", [], [ptype],
                     [("shape", "ia", list(op.attr("shape"))), ("value", "f64", value),
                      ("dtype", "dtype", dtype), ("place", "place", Place())])
    rs.bind(name, vid)


def assign_value(rs, op, block) -> None:
    name, ptype = _out(rs, op, block)
    dtype = VarType(op.attr("dtype"))
    slot, kind = _VALUE_SLOTS[dtype]
    vid, = rs.op("pd_op.assign_value", [], [ptype],
                 [("shape", "i32s", list(op.attr("shape"))), ("dtype", "dtype", dtype),
                  ("values", kind, list(op.attr(slot) or [])), ("place", "place", Place())])
    rs.bind(name, vid)


# -- ops whose PIR form depends on attributes ---------------------------------------------------
def reduce(rs, op, block) -> None:
    pir = {"reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min", "reduce_sum": "sum",
           "reduce_prod": "prod", "reduce_all": "all", "reduce_any": "any"}[op.type]
    axis = [] if op.attr("reduce_all") else list(op.attr("dim") or [])
    _generic(rs, op, block, "pd_op." + pir, {"dim": axis, "reduce_all": not axis})


_ELEMENTWISE = ("elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
                "elementwise_max", "elementwise_min", "elementwise_mod", "elementwise_floordiv",
                "elementwise_pow", "equal", "not_equal", "less_than", "less_equal",
                "greater_than", "greater_equal")


def elementwise(rs, op, block) -> None:
    """Legacy ``axis`` aligns Y with X's dims from ``axis`` on (a conv bias [C] on [N, C, H, W]
    at axis 1); PIR broadcasts from the right only, so Y is reshaped with trailing 1s."""
    x_name, y_name = op.input("X")[0], op.input("Y")[0]
    x_type, y_type = rs.var_type(x_name, block), rs.var_type(y_name, block)
    axis, x_rank, y_rank = op.attr("axis"), len(x_type.dims), len(y_type.dims)
    if axis is None or axis == -1 or y_rank > x_rank or axis == x_rank - y_rank:
        _generic(rs, op, block, BY_LEGACY[op.type].pir)
        return
    trailing = x_rank - axis - y_rank
    if trailing < 0:
        raise ValueError(f"op '{op.type}' has axis {axis}, which does not fit a "
                         f"{y_rank}-D Y in a {x_rank}-D X")
    y, = rs.op("pd_op.reshape", [rs.value(y_name, op),
                                 rs.constant("ia", [0] * y_rank + [1] * trailing)],
               [PirType(TENSOR, y_type.dtype, tuple(y_type.dims) + (1,) * trailing)])
    out_name, out_type = _out(rs, op, block)
    vid, = rs.op(BY_LEGACY[op.type].pir, [rs.value(x_name, op), y], [out_type])
    rs.bind(out_name, vid)


def strided_slice(rs, op, block) -> None:
    """PIR's strided_slice keeps every dim; a legacy ``decrease_axis`` becomes a squeeze."""
    decrease = list(op.attr("decrease_axis") or [])
    if not decrease:
        _generic(rs, op, block, "pd_op.strided_slice")
        return
    out_name, out_type = _out(rs, op, block)
    full_dims = list(out_type.dims)
    for axis in sorted(decrease):
        full_dims.insert(axis, 1)
    sliced, = _generic(rs, op, block, "pd_op.strided_slice",
                       types=[PirType(TENSOR, out_type.dtype, tuple(full_dims))])
    vid, = rs.op("pd_op.squeeze", [sliced, rs.constant("ia", decrease)], [out_type])
    rs.bind(out_name, vid)


def slice_(rs, op, block) -> None:
    """``slice`` of a tensor array taking one element (``outs[-1]`` in Paddle 2.x's
    dynamic-to-static) is PIR's ``slice_array_dense``."""
    source = op.input("Input")[0]
    if block._find_var_recursive(source).type != VarType.LOD_TENSOR_ARRAY:
        _generic(rs, op, block, "pd_op.slice")
        return
    starts = list(op.attr("starts") or [])
    if len(starts) != 1 or list(op.attr("decrease_axis") or []) != [0] or \
            op.input("StartsTensor") or op.input("StartsTensorList"):
        raise ValueError("slice of a tensor array is written as PIR only for one constant "
                         "index (array[k])")
    out_name, out_type = _out(rs, op, block)
    vid, = rs.op("pd_op.slice_array_dense",
                 [rs.value(source, op), rs.constant("ia", starts)], [out_type])
    rs.bind(out_name, vid)


def set_value(rs, op, block) -> None:
    """A tensor value is ``set_value_with_tensor`` in PIR, constants ``set_value``."""
    _generic(rs, op, block, "pd_op.set_value_with_tensor" if op.input("ValueTensor")
             else "pd_op.set_value")


def split(rs, op, block) -> None:
    if (op.attr("num") or 0) > 0:
        _generic(rs, op, block, "pd_op.split_with_num")
    else:
        _generic(rs, op, block, "pd_op.split")


def top_k(rs, op, block) -> None:
    """Paddle 1.x's ``top_k`` (last axis, largest first, sorted) is ``topk``."""
    _generic(rs, op, block, "pd_op.topk", {"axis": -1, "largest": True, "sorted": True})


def tril_triu(rs, op, block) -> None:
    _generic(rs, op, block, "pd_op.tril" if op.attr("lower") else "pd_op.triu")


def mul(rs, op, block) -> None:
    """``mul`` (and ``fc``) flatten X to 2-D at ``x_num_col_dims`` and multiply by a 2-D Y;
    PIR writes it as a reshape of X where needed and a ``matmul``."""
    x_slot, y_slot, ncol = (("X", "Y", op.attr("x_num_col_dims")) if op.type == "mul"
                            else ("Input", "W", op.attr("in_num_col_dims")))
    x_name, y_name = op.input(x_slot)[0], op.input(y_slot)[0]
    x_type, y_type = rs.var_type(x_name, block), rs.var_type(y_name, block)
    if len(y_type.dims) != 2 or (op.type == "mul" and op.attr("y_num_col_dims") != 1):
        raise ValueError(f"op '{op.type}' with a {len(y_type.dims)}-D Y cannot be written "
                         "as PIR (only 2-D weights are supported)")
    x = rs.value(x_name, op)
    if len(x_type.dims) != ncol + 1:
        kept = x_type.dims[:ncol]
        rest = x_type.dims[ncol:]
        flat = -1 if any(d < 0 for d in rest) else _product(rest)
        x, = rs.op("pd_op.reshape", [x, rs.constant("ia", [0] * ncol + [-1])],
                   [PirType(TENSOR, x_type.dtype, tuple(kept) + (flat,))])
    out_name, out_type = _out(rs, op, block)
    vid, = rs.op("pd_op.matmul", [x, rs.value(y_name, op)], [out_type],
                 [("transpose_x", "b", False), ("transpose_y", "b", False)])
    if op.type == "fc":
        if op.input("Bias"):
            vid, = rs.op("pd_op.add", [vid, rs.value(op.input("Bias")[0], op)], [out_type])
        if op.attr("activation_type") == "relu":
            vid, = rs.op("pd_op.relu", [vid], [out_type])
        elif op.attr("activation_type"):
            raise ValueError(f"fc activation '{op.attr('activation_type')}' has no PIR form here")
    rs.bind(out_name, vid)


def _product(dims) -> int:
    result = 1
    for d in dims:
        result *= d
    return result


_CONSTANTS = ("pd_op.full", "pd_op.full_int_array", "pd_op.assign_value")


def select_input(rs, op, block) -> None:
    """PIR's select_input needs inputs of one dtype. Paddle 2.x's dynamic-to-static pairs a
    branch value with a float32 placeholder (``undefined_var``, an assign_value) of any dtype;
    the placeholders are cast to the dtype of the first computed input, as the result is."""
    name, ptype = _out(rs, op, block)
    inputs = [rs.value(n, op) for n in op.input("X")]
    computed = [v for v in inputs if rs.producers.get(v) not in _CONSTANTS] or inputs
    dtype = rs.types[computed[0]].dtype
    for i, vid in enumerate(inputs):
        if rs.types[vid].dtype != dtype:
            inputs[i], = rs.op("pd_op.cast", [vid], [rs.types[vid]._replace(dtype=dtype)],
                               [("dtype", "dtype", Dtype(dtype))])
    vid, = rs.op("pd_op.select_input", [rs.value(op.input("Mask")[0], op)] + inputs,
                 [ptype._replace(dtype=dtype)])
    rs.bind(name, vid)


def write_to_array(rs, op, block) -> None:
    """A legacy array exists from its first write; PIR creates it first."""
    name, ptype = _out(rs, op, block)
    if not rs.has(name):
        vid, = rs.op("pd_op.create_array", [], [ptype], [("dtype", "dtype", Dtype(ptype.dtype))])
        rs.bind(name, vid)
    array = rs.value(name, op)
    result, = rs.op("pd_op.array_write_",
                    [array, rs.value(op.input("X")[0], op), rs.value(op.input("I")[0], op)],
                    [ptype])
    rs.bind(name, result)


HOOKS = {
    "feed": feed, "fetch": fetch, "fill_constant": fill_constant, "assign_value": assign_value,
    **{name: reduce for name in ("reduce_mean", "reduce_max", "reduce_min", "reduce_sum",
                                 "reduce_prod", "reduce_all", "reduce_any")},
    "split": split, "slice": slice_, "set_value": set_value, "tril_triu": tril_triu, "top_k": top_k, "strided_slice": strided_slice,
    **{name: elementwise for name in _ELEMENTWISE}, "mul": mul, "fc": mul,
    "select_input": select_input, "write_to_array": write_to_array,
}
