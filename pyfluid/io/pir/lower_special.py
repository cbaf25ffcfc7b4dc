"""Lowering hooks for the PIR ops that are not one renamed legacy op: parameters, feeds and
fetches, ``builtin`` vector plumbing, constants, casts, reductions and the ops whose legacy
form depends on an attribute (split, tril/triu, shape64)."""
from __future__ import annotations

from typing import Any

from ...ops.types import VarType
from .decode import PirOp
from .op_table import SPECS
from .schema import Dtype, PirFormatError, PirType

FEED_HOLDER, FETCH_HOLDER = "feed", "fetch"
_VALUE_SLOTS = {VarType.FP32: "fp32_values", VarType.FP64: "fp64_values",
                VarType.INT32: "int32_values", VarType.INT64: "int64_values",
                VarType.BOOL: "bool_values"}


def _single_result(op: PirOp) -> tuple[int, PirType | None]:
    if len(op.results) != 1:
        raise PirFormatError(f"{op.where}: expected one result, found {len(op.results)}")
    return op.results[0]


def _operands(op: PirOp, count: int) -> list[int]:
    if len(op.operands) != count:
        raise PirFormatError(f"{op.where}: expected {count} operands, found {len(op.operands)}")
    return op.operands


# -- program structure --------------------------------------------------------------------
def parameter(lw, op: PirOp, block) -> None:
    lw.define_parameter(op)


def data(lw, op: PirOp, block) -> None:
    vid, ptype = _single_result(op)
    name = op.attr("name")
    if not isinstance(name, str) or not name:
        raise PirFormatError(f"{op.where}: a feed needs a non-empty 'name'")
    if name in lw.feeds:
        raise PirFormatError(f"{op.where}: two feeds are named '{name}'")
    lw.define(block, vid, ptype, name=name, op=op, is_data=True, need_check_feed=True)
    col = op.attr("col", len(lw.feeds))
    lw.feeds.append((col, name))


def fetch(lw, op: PirOp, block) -> None:
    vid, ptype = _single_result(op)
    source = lw.tensor(_operands(op, 1)[0], op)
    col = op.attr("col")
    if type(col) is not int or col < 0 or col in lw.fetches:
        raise PirFormatError(f"{op.where}: fetch col {col!r} is not a new index >= 0")
    lw.fetches[col] = source
    lw.alias(vid, source, ptype)


def combine(lw, op: PirOp, block) -> None:
    vid, ptype = _single_result(op)
    lw.alias(vid, [lw.tensor(v, op) for v in op.operands], ptype)


def split(lw, op: PirOp, block) -> None:
    names = lw.name(_operands(op, 1)[0], op)
    if not isinstance(names, list) or len(names) != len(op.results):
        raise PirFormatError(f"{op.where}: unpacks {len(op.results)} values from "
                             f"{names!r}, which is not a vector of that length")
    for (vid, ptype), name in zip(op.results, names):
        lw.alias(vid, name, ptype)


def shadow_output(lw, op: PirOp, block) -> None:
    """Names a value for the executor's scope; nothing to run."""
    _operands(op, 1)


def add_feed_fetch_ops(lw) -> None:
    """Feed ops first (in Paddle's prepend order), fetch ops last, both with ``col``."""
    block = lw.program.global_block()
    feeds = [name for _, name in sorted(lw.feeds, key=lambda item: item[0])]
    if feeds:
        holder = block.create_var(name=FEED_HOLDER, type=VarType.FEED_MINIBATCH,
                                  persistable=True)
        for col in range(len(feeds) - 1, -1, -1):
            block._prepend_op(type="feed", inputs={"X": [holder]},
                              outputs={"Out": [feeds[col]]}, attrs={"col": col})
    if sorted(lw.fetches) != list(range(len(lw.fetches))):
        raise PirFormatError(f"fetch cols {sorted(lw.fetches)} are not 0..n-1")
    holder = block.create_var(name=FETCH_HOLDER, type=VarType.FETCH_LIST, persistable=True)
    for col in sorted(lw.fetches):
        block.append_op(type="fetch", inputs={"X": [lw.fetches[col]]},
                        outputs={"Out": [holder]}, attrs={"col": col})


# -- constants ------------------------------------------------------------------------------
def _output(lw, op: PirOp, block, prefix: str) -> dict:
    vid, ptype = _single_result(op)
    return {"Out": [lw.define(block, vid, ptype, prefix=prefix, op=op)]}


def full(lw, op: PirOp, block) -> None:
    dtype = _dtype(op)
    value = op.attr("value", 0.0)
    if not isinstance(value, (int, float)):
        raise PirFormatError(f"{op.where}: 'value' must be a number, got {value!r}")
    attrs = {"shape": list(op.attr("shape", [])), "value": float(value), "dtype": dtype,
             "str_value": _str_value(value, dtype)}
    lw.emit(block, "fill_constant", {}, _output(lw, op, block, "full"), attrs, op)


def full_int_array(lw, op: PirOp, block) -> None:
    values = [int(v) for v in op.attr("value", [])]
    dtype = _dtype(op) if "dtype" in op.attrs else VarType.INT64
    _assign_value(lw, op, block, [len(values)], dtype, values)


def assign_value(lw, op: PirOp, block) -> None:
    values = op.attr("values", [])
    if not isinstance(values, list):
        raise PirFormatError(f"{op.where}: 'values' must be a list")
    _assign_value(lw, op, block, list(op.attr("shape", [])), _dtype(op), values)


def _assign_value(lw, op, block, shape, dtype, values) -> None:
    slot = _VALUE_SLOTS.get(dtype)
    if slot is None:
        raise PirFormatError(f"{op.where}: constants of dtype {dtype} are not supported")
    cast = bool if dtype == VarType.BOOL else float if slot[1] == "p" else int
    attrs = {"shape": shape, "dtype": dtype, slot: [cast(v) for v in values]}
    outputs = _output(lw, op, block, "assign_value")
    if op.operands:                          # assign_value_(output): writes its operand's var
        name = lw.tensor(op.operands[0], op)
        lw.alias(op.results[0][0], name, op.results[0][1])
        outputs = {"Out": [name]}
    lw.emit(block, "assign_value", {}, outputs, attrs, op)


def full_with_tensor(lw, op: PirOp, block) -> None:
    value_id, shape_id = _operands(op, 2)
    inputs, attrs = {}, {"dtype": _dtype(op)}
    value = lw.constant(value_id)
    if value is None:
        inputs["ValueTensor"] = [lw.tensor(value_id, op)]
    else:
        attrs["value"] = float(value)
    shape = lw.constant(shape_id)
    if shape is not None:
        attrs["shape"] = shape
    else:
        names = lw.name(shape_id, op)
        inputs["ShapeTensorList" if isinstance(names, list) else "ShapeTensor"] = (
            names if isinstance(names, list) else [names])
    lw.emit(block, "fill_constant", inputs, _output(lw, op, block, "full_with_tensor"),
            attrs, op)


def _dtype(op: PirOp) -> VarType:
    dtype = op.attr("dtype")
    if not isinstance(dtype, Dtype) or dtype.value is None:
        raise PirFormatError(f"{op.where}: needs a defined 'dtype', got {dtype!r}")
    return dtype.value


def _str_value(value: float, dtype: VarType) -> str:
    """Paddle's exact spelling of integer fills (a float loses digits past 2**53)."""
    if dtype in (VarType.INT32, VarType.INT64, VarType.INT8, VarType.INT16, VarType.UINT8):
        return str(int(value))
    return ""


# -- ops whose legacy attributes are derived ---------------------------------------------------
def cast(lw, op: PirOp, block) -> None:
    source = lw.types.get(_operands(op, 1)[0])
    in_dtype = source.dtype if source is not None and source.dtype is not None else -1
    lw.generic(op, block, SPECS["pd_op.cast"], attrs={"in_dtype": in_dtype})


def reduce(lw, op: PirOp, block) -> None:
    spec = SPECS[op.name.rstrip("_")]
    if len(op.operands) > 1:
        axis = lw.constant(op.operands[1])
    else:
        axis = op.attr("axis")
    lw.generic(op, block, spec, attrs={"reduce_all": isinstance(axis, list) and not axis})


def set_value(lw, op: PirOp, block) -> None:
    """The legacy op also names the dtype of its values: the input's."""
    source = lw.types.get(op.operands[0]) if op.operands else None
    dtype = source.dtype if source is not None and source.dtype is not None else VarType.FP32
    lw.generic(op, block, SPECS[op.name.rstrip("_")], attrs={"dtype": dtype})


def split_sections(lw, op: PirOp, block) -> None:
    lw.generic(op, block, SPECS["pd_op.split"], attrs={"num": 0})


def tril_triu(lw, op: PirOp, block) -> None:
    lw.generic(op, block, SPECS[op.name], attrs={"lower": op.name.endswith("tril")})


def shape64(lw, op: PirOp, block) -> None:
    """``shape64`` (int64 dims) is the legacy ``shape`` (int32) and a cast to int64."""
    source = lw.tensor(_operands(op, 1)[0], op)
    vid, ptype = _single_result(op)
    dims = lw.define_var(block, PirType("tensor", VarType.INT32, ptype.dims if ptype else ()),
                         lw.fresh("shape"))
    lw.emit(block, "shape", {"Input": [source]}, {"Out": [dims]}, {}, op)
    out = lw.define(block, vid, ptype, prefix="shape64", op=op)
    lw.emit(block, "cast", {"X": [dims]}, {"Out": [out]},
            {"in_dtype": VarType.INT32, "out_dtype": VarType.INT64}, op)


def create_array(lw, op: PirOp, block) -> None:
    """A legacy tensor array is a variable no op creates; its first write makes it."""
    vid, ptype = _single_result(op)
    lw.define(block, vid, ptype, prefix="create_array", op=op)


def slice_array_dense(lw, op: PirOp, block) -> None:
    """``array[k]`` -> ``read_from_array``; a negative constant k counts from the end
    (``lod_array_length`` + k)."""
    array_id, start_id = _operands(op, 2)
    array = lw.tensor(array_id, op)
    start = lw.constant(start_id)
    index_type = PirType("tensor", VarType.INT64, (1,))
    index = lw.define_var(block, index_type, lw.fresh("array_index"))
    if start is None:
        lw.emit(block, "assign", {"X": [lw.tensor(start_id, op)]}, {"Out": [index]}, {}, op)
    elif len(start) != 1:
        raise PirFormatError(f"{op.where}: slicing a tensor array by {start} is not "
                                    "supported (one index only)")
    elif start[0] >= 0:
        lw.emit(block, "fill_constant", {}, {"Out": [index]},
                {"shape": [1], "dtype": VarType.INT64, "value": float(start[0]),
                 "str_value": str(start[0])}, op)
    else:
        length = lw.define_var(block, index_type, lw.fresh("array_length"))
        lw.emit(block, "lod_array_length", {"X": [array]}, {"Out": [length]}, {}, op)
        lw.emit(block, "scale", {"X": [length]}, {"Out": [index]},
                {"scale": 1.0, "bias": float(start[0])}, op)
    vid, ptype = _single_result(op)
    out = lw.define(block, vid, ptype, prefix="slice_array_dense", op=op)
    lw.emit(block, "read_from_array", {"X": [array], "I": [index]}, {"Out": [out]}, {}, op)


def select_input(lw, op: PirOp, block) -> None:
    if len(op.operands) < 2:
        raise PirFormatError(f"{op.where}: needs a mask and at least one input")
    mask, *xs = op.operands
    vid, ptype = _single_result(op)
    out = lw.define(block, vid, ptype, prefix="select_input", op=op)
    lw.emit(block, "select_input", {"Mask": [lw.tensor(mask, op)],
                                    "X": [lw.tensor(x, op) for x in xs]},
            {"Out": [out]}, {}, op)


HOOKS: dict[str, Any] = {
    "builtin.parameter": parameter, "pd_op.data": data, "pd_op.feed": data,
    "pd_op.fetch": fetch, "builtin.combine": combine, "builtin.split": split,
    "builtin.shadow_output": shadow_output,
    "pd_op.full": full, "pd_op.full_int_array": full_int_array,
    "pd_op.assign_value": assign_value, "pd_op.assign_value_": assign_value,
    "pd_op.full_with_tensor": full_with_tensor, "pd_op.cast": cast, "pd_op.cast_": cast,
    **{f"pd_op.{name}": reduce for name in ("mean", "max", "min", "sum", "prod", "all", "any")},
    **{f"pd_op.{name}{suffix}": set_value for name in ("set_value", "set_value_with_tensor")
       for suffix in ("", "_")},
    "pd_op.split": split_sections, "pd_op.tril": tril_triu, "pd_op.triu": tril_triu,
    "pd_op.shape64": shape64, "pd_op.select_input": select_input,
    "pd_op.create_array": create_array, "pd_op.slice_array_dense": slice_array_dense,
}
