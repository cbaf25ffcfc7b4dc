"""Indexing of static Variables and eager Tensors (``x[index]``, ``paddle.static.setitem``,
eager ``x[index] = value``), lowered to the ops Paddle 2.6 emits, in both modes:

* ints and slices: ``slice`` (``strided_slice`` for steps other than 1), ints as decreased
  axes; ``None``: ``unsqueeze2``; ``...``: as many full slices as needed;
* lists, arrays and tensors (advanced indices): moved to the front (``transpose2``), then
  ``gather_nd`` on their ``stack`` (``broadcast_tensors`` first when there are several), a single
  boolean mask through ``where_index`` (``paddle.nonzero``);
* assignment: ``set_value`` on the region of ints and slices; with advanced indices the region
  is read, written by ``index_put`` and put back by ``set_value``.

Ops run through ``apply_op``: appended for static Variables, run at once (on the tape) for
eager Tensors, so both modes give the same values and gradients."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._dispatch import apply_op
from ..engine.tensor import Tensor
from ..framework import unique_name
from ..framework.variable import Variable
from ..ops.types import VarType, to_numpy_dtype
from .manipulation import stack, transpose, unsqueeze

_MAX_INT = 2 ** 31 - 1
TENSORS = (Variable, Tensor)


class Index(NamedTuple):
    axes: list
    starts: list
    ends: list
    steps: list
    none_axes: list
    decrease_axes: list
    advanced: list          # one (position, index tensor) or None per possible dim
    strided: bool

    @property
    def has_advanced(self) -> bool:
        return any(a is not None for a in self.advanced)


def _shape(x) -> list:
    return list(x.shape)


def _constant(like, value: np.ndarray):
    """``value`` as a tensor of ``like``'s kind (Paddle's ``to_tensor`` of an index list)."""
    if isinstance(like, Tensor):
        return Tensor._wrap(np.array(value))
    from ..nn.initializer import NumpyArrayInitializer   # nn builds on the tensor API
    block = like.block.program.current_block()
    out = block.create_var(name=unique_name.generate_with_ignorable_key("assign.tmp"),
                           dtype=value.dtype.name, shape=value.shape, stop_gradient=True)
    op_type, attrs = NumpyArrayInitializer(value)._op(out, None)
    block.append_op(type=op_type, outputs={"Out": [out]}, attrs=attrs)
    return out


def _is_int(item) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _expand(x, index) -> tuple[list, list]:
    """Index items with arrays as tensors, ``...`` expanded, and ``None`` taken out (their
    positions are the new axes)."""
    items = [(_constant(x, item) if isinstance(item, np.ndarray) else
              list(item) if isinstance(item, range) else item)
             for item in (index if isinstance(index, tuple) else (index,))]
    plain = [i for i in items if not isinstance(i, TENSORS) and i is not None]
    ellipses = sum(1 for i in plain if i is Ellipsis)
    if ellipses > 1:
        raise IndexError("An index can only have a single ellipsis ('...')")
    if ellipses:
        at = next(k for k, i in enumerate(items) if i is Ellipsis)
        fill = len(x.shape) - len(items) + items.count(None) + 1
        items[at:at + 1] = [] if at == len(items) - 1 else [slice(None)] * fill
    none_axes = [k for k, i in enumerate(items) if i is None]
    return [i for i in items if i is not None], none_axes


def parse(x, index) -> Index:
    items, none_axes = _expand(x, index)
    shape = _shape(x)
    axes, starts, ends, steps, decrease = [], [], [], [], []
    advanced: list = [None] * (2 * len(shape))
    dim = estimated = 0
    strided = False
    for item in items:
        if _is_int(item):
            item = int(item)
            if dim < len(shape) and shape[dim] >= 0 and item >= shape[dim]:
                raise IndexError(f"slice_item {item} at dim {dim} should be >= 0 and < "
                                 f"x.shape[{dim}]: {shape[dim]}")
            decrease.append(dim)
            axes.append(dim), starts.append(item), steps.append(1)
            ends.append(item + 1 if item != -1 else _MAX_INT)
            dim += 1
        elif isinstance(item, (bool, np.bool_)):
            none_axes.append(dim)
            advanced[estimated] = (estimated, _constant(x, np.array([bool(item)])))
            estimated += 1
        elif isinstance(item, slice):
            estimated += 1
            dim += 1
            if item.start is None and item.stop is None and item.step is None:
                continue
            step = 1 if item.step is None else int(item.step)
            start = (0 if step > 0 else _MAX_INT) if item.start is None else int(item.start)
            end = (_MAX_INT if step > 0 else -1) if item.stop is None else int(item.stop)
            axes.append(dim - 1), starts.append(start), ends.append(end), steps.append(step)
            strided = strided or step != 1
        elif isinstance(item, (list, tuple, *TENSORS)):
            tensor = item if isinstance(item, TENSORS) else _constant(x, np.array(item))
            if tensor.dtype == VarType.BOOL:
                size = tensor.shape[0] if len(tensor.shape) else None
                if size is None:
                    none_axes.append(dim)
                elif dim < len(shape) and size != shape[dim] and -1 not in (size, shape[dim]):
                    raise IndexError(f"The shape of boolean index {size} did not match indexed "
                                     f"tensor {shape[dim]} along axis {dim}")
            advanced[estimated] = (estimated, tensor)
            estimated += 1
            dim += 1
        else:
            raise IndexError("Valid index accept int / bool / slice / ellipsis / list / Tuple / "
                             f"Ndarray / Tensor, but received {item}.")
    return Index(axes, starts, ends, steps, none_axes, decrease, advanced, strided)


def _basic(x, idx: Index):
    """The ints-and-slices part: ``slice``/``strided_slice``, then ``unsqueeze2`` for None."""
    out = x
    if idx.axes:
        op_type = "strided_slice" if idx.strided else "slice"
        attrs = {"axes": idx.axes, "starts": idx.starts, "ends": idx.ends,
                 "infer_flags": [1] * len(idx.axes), "decrease_axis": idx.decrease_axes}
        if idx.strided:
            attrs["strides"] = idx.steps
        outputs = None
        if isinstance(x, Variable):        # Paddle names it after the sliced variable
            block = x.block.program.current_block()
            outputs = {"Out": block.create_var(name=unique_name.generate_with_ignorable_key(
                f"{x.name}_{op_type}"), dtype=x.dtype)}
        result = apply_op(op_type, {"Input": x}, attrs, outputs=outputs)
        out = outputs["Out"] if outputs else result
    if idx.none_axes:
        out = unsqueeze(out, [a - sum(1 for d in idx.decrease_axes if d < a)
                              for a in idx.none_axes])
    return out


def _front(x, advanced: list) -> tuple:
    """Advanced indices moved to the front: (transposed x, their tensors, the permutation,
    where the indexed dims go in the result, their rank)."""
    order, tensors, pos, rank = [], [], _MAX_INT, 1
    for i, entry in enumerate(advanced):
        if entry is None:
            continue
        pos = 0 if i == 0 or (order and order[-1] != i - 1) else min(pos, i)
        rank = max(rank, len(entry[1].shape))
        order.append(i)
        tensors.append(entry[1])
    order += [i for i in range(len(x.shape)) if advanced[i] is None]
    moved = x if order == list(range(len(x.shape))) else transpose(x, order)
    return moved, tensors, order, pos, rank


def getitem(x, index):
    idx = parse(x, index)
    out = _basic(x, idx)
    if not idx.has_advanced:
        return out
    moved, tensors, _, pos, rank = _front(out, idx.advanced)
    if len(tensors) == 1 and tensors[0].dtype == VarType.BOOL:
        mask = tensors[0]
        if len(mask.shape) > len(moved.shape):
            raise IndexError("The dims of bool index doesn't match indexed array, the dims of "
                             "bool index except to be equal or less than "
                             f"{len(moved.shape)}, but received {len(mask.shape)}.")
        where = apply_op("where_index", {"Condition": mask}, layer="where_index")
        return apply_op("gather_nd", {"X": moved, "Index": where}, layer="gather_nd")
    tensors = [getitem(apply_op("where_index", {"Condition": t}, layer="where_index"),
                       (slice(None), 0)) if t.dtype == VarType.BOOL else t for t in tensors]
    if len(tensors) > 1:
        tensors = _broadcast(tensors)
        coords = stack(tensors, axis=-1)
    else:
        coords = unsqueeze(tensors[0], -1)
    out = apply_op("gather_nd", {"X": moved, "Index": coords}, layer="gather_nd")
    if pos != 0:
        ndim = len(out.shape)
        out = transpose(out, list(range(rank, pos + rank)) + list(range(rank))
                        + list(range(pos + rank, ndim)))
    return out


def _broadcast(tensors: list) -> list:
    if isinstance(tensors[0], Variable):
        block = tensors[0].block.program.current_block()
        prefix = unique_name.generate("broadcast_tensors")
        outs = [block.create_var(name=unique_name.generate_with_ignorable_key(prefix + ".tmp"))
                for _ in tensors]
        apply_op("broadcast_tensors", {"X": tensors}, outputs={"Out": outs})
        return outs
    return list(apply_op("broadcast_tensors", {"X": tensors}))


def _cast(value, dtype):
    return apply_op("cast", {"X": value}, {"in_dtype": int(value.dtype), "out_dtype": int(dtype)})


def _as_value(x, value):
    """A value to assign as a tensor of x's dtype (a constant is assigned, then cast)."""
    if isinstance(value, TENSORS):
        return value if value.dtype == x.dtype else _cast(value, x.dtype)
    array = np.array(value)
    if array.dtype == np.float64:
        array = array.astype(np.float32)        # paddle.assign keeps constants in float32
    return _cast(_constant(x, array if array.ndim else array.reshape(1)), x.dtype)


def setitem_value(x, index, value):
    """``x`` with ``value`` written at ``index``, as a new tensor (the ``set_value`` output)."""
    idx = parse(x, index)
    attrs = {"axes": idx.axes, "starts": idx.starts, "ends": idx.ends, "steps": idx.steps,
             "decrease_axes": idx.decrease_axes, "none_axes": idx.none_axes}
    inputs = {"Input": x}
    if not idx.has_advanced:
        attrs["dtype"] = int(x.dtype)
        if isinstance(value, TENSORS):
            inputs["ValueTensor"] = _cast(value, x.dtype)
        elif isinstance(value, (bool, int, float, complex, np.number, np.ndarray)):
            array = np.array(value if np.ndim(value) else [value]).astype(
                to_numpy_dtype(x.dtype))
            attrs["values"], attrs["shape"] = array.ravel().tolist(), list(array.shape)
        else:
            raise TypeError("Only support to assign an integer, float, numpy.ndarray or "
                            f"paddle.Tensor to a paddle.Tensor, but received {type(value)}")
        return apply_op("set_value", inputs, attrs, layer="set_value")
    value = _as_value(x, value)
    region = _basic(x, idx)
    moved, tensors, order, pos, _ = _front(region, idx.advanced)
    if len(value.shape) > 1 and pos != 0 and moved is not region:
        value = transpose(value, order)
    written = apply_op("index_put", {"x": moved, "indices": tensors, "value": value},
                       {"accumulate": False}, layer="index_put")
    inputs["ValueTensor"] = transpose(written, np.argsort(order).tolist())
    return apply_op("set_value", inputs, {**attrs, "dtype": int(x.dtype)}, layer="set_value")


def setitem(x, index, value):
    """``paddle.static.setitem``: a static Variable returns the new Variable; an eager Tensor
    is updated in place (and returned), its gradient flowing through ``set_value``."""
    out = setitem_value(x, index, value)
    if isinstance(x, Variable):
        return out
    if not x.stop_gradient and x.is_leaf:
        raise ValueError(f"(InvalidArgument) Leaf Tensor ({x.name}) that doesn't stop gradient "
                         "can't use inplace strategy.")
    x._array, x._node, x._out_index = out._array, out._node, out._out_index
    x.stop_gradient = out.stop_gradient
    x._bump_inplace_version()
    return x


def variable_setitem(self, index, value) -> None:
    """A static Variable cannot be assigned in place (Paddle 2.6 outside to_static)."""
    raise RuntimeError("In static mode, the __setitem__ (looks like: x[indices] = values) "
                       "should not be used. Please use x = paddle.static.setitem(x, indices, "
                       "values)")
