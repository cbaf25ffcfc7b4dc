"""Running one registered op eagerly, and recording it on the tape.

``run_op`` calls the kernel the static Executor would call (``OpDef.bound_kernel``) and, when
an input needs a gradient, records an :class:`OpNode`. Backward runs the derived
``<type>_grad`` op's kernel, or, for ops with a custom grad maker, the grad-op specs the
static ``append_backward`` would append (``grad_specs.py``): one declaration serves both
modes. ``create_graph`` runs the same grad ops as recorded eager ops (``higher_order.py``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .op_info import OpInfo
from .tape import NODE_NUMBERS, Node, edge_of
from .grad_mode import _GradMode
from .tensor import Tensor

_INFO: dict[str, OpInfo] = {}      # op type -> OpInfo, built at the type's first run


def _info(op_type: str) -> OpInfo:
    info = _INFO.get(op_type)
    if info is None:
        info = _INFO[op_type] = OpInfo(op_type)
        info.run = compile_run(info)
    return info


def _as_tensor(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor._wrap(np.asarray(value))


def run_op(op_type: str, inputs: dict, attrs: dict | None = None):
    """Run ``op_type`` on eager Tensors. Returns one Tensor when the op has one output slot,
    else a tuple with one entry per output slot (a list for duplicable slots)."""
    info = _INFO.get(op_type) or _info(op_type)
    if attrs is None:
        attrs = {}
    if info.run is not None:      # no duplicable input: the op's own straight-line code
        return info.run(inputs, attrs)
    tensors: list = []            # per input slot: Tensor, list of Tensors, or None
    args: list = []
    needs_grad = False
    for name, dispensable, duplicable in info.slots:
        value = inputs.get(name)
        if value is None:
            if not dispensable:
                raise ValueError(f"op '{op_type}': input '{name}' is required but was not "
                                 f"given (received slots {sorted(inputs)})")
            tensors.append(None)
            args.append(None)
        elif duplicable:
            ts = [_as_tensor(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
            tensors.append(ts)
            args.append([t._array for t in ts])
            needs_grad = needs_grad or any(not t.stop_gradient for t in ts)
        else:
            if value.__class__ is not Tensor and not isinstance(value, Tensor):
                value = _as_tensor(value)
            tensors.append(value)
            args.append(value._array)
            if not value.stop_gradient:
                needs_grad = True
    entry = info.bound(attrs)
    try:
        result = entry[0](*args, **entry[1])
    except Exception as exc:
        raise _explain(op_type, info.inputs, args, exc) from exc
    return _outputs(info, attrs, entry, tensors, args, result,
                    needs_grad and info.differentiable and _GradMode.enabled)


def _outputs(info: OpInfo, attrs: dict, entry: list, tensors: list, args: list, result,
             record: bool):
    """The op's result as Tensors (recorded on the tape when ``record``), as ``run_op``
    returns them."""
    if info.single_output and not isinstance(result, list):
        out = Tensor._wrap(result, not record)
        if record:
            (_record_plain if info.plain else _record)(info, attrs, entry, tensors, args,
                                                       (result,), [out])
        return out
    if info.plain and not info.single_output:       # several outputs, none duplicable
        stop = not record
        outs = tuple([None if v is None else Tensor._wrap(v, stop) for v in result])
        if record:
            _record_plain(info, attrs, entry, tensors, args, result, outs)
        return outs
    results = (result,) if info.single_output else result
    outs = []
    for value in results:
        if isinstance(value, list):
            outs.append([Tensor._wrap(v, not record) for v in value])
        else:
            outs.append(None if value is None else Tensor._wrap(value, not record))
    if record:
        _record(info, attrs, entry, tensors, args, results,
                [o for out in outs for o in (out if isinstance(out, list) else [out])])
    return outs[0] if info.single_output else tuple(outs)


def _record(info: OpInfo, attrs: dict, entry: list | None, tensors: list, args: list,
            results: tuple, flat_outs: list) -> None:
    """Put an :class:`OpNode` for this call on the tape (``entry``: its ``bound`` memo)."""
    if info.plain:
        _record_plain(info, attrs, entry, tensors, args, results, flat_outs)
        return
    edges = []
    for i in info.diff_slots:
        t = tensors[i]
        if t is None:
            if not info.inputs[i].duplicable:      # an absent list has no tensors, no edges
                edges.append(None)
        elif t.__class__ is list:
            edges.extend(edge_of(x) for x in t)
        elif t.stop_gradient:
            edges.append(None)
        else:                                      # edge_of, inlined (the hot path)
            node = t._node
            edges.append((node, t._out_index, None) if node is not None else (None, 0, t))
    node = OpNode(info, attrs, edges, len(flat_outs))
    node.bound = entry
    if info.dup_outputs:
        node.out_layout = tuple(len(r) if isinstance(r, list) else -1 for r in results)
    if info.has_duplicable:
        node.layout = tuple(len(tensors[i] or ()) if info.inputs[i].duplicable else -1
                            for i in info.diff_slots)
    if info.grad_def is not None:
        node.saved = [results[index] if is_output else args[index]
                      for index, is_output in info.saved_values]
        saved_inputs = info.saved_inputs
        if len(flat_outs) > 1:
            node.out_meta = [(o._array.shape, o._array.dtype) if o is not None else None
                             for o in flat_outs]
    else:                                   # a grad maker may read any input or output
        node.saved = (args, results)
        saved_inputs = range(len(tensors))
    if saved_inputs:
        versions = []
        for index in saved_inputs:
            t = tensors[index]
            if t.__class__ is list:
                versions.extend((x, x._version) for x in t)
            elif t is not None:
                versions.append((t, t._version))
        node.versions = versions
    if len(flat_outs) == 1 and flat_outs[0] is not None:
        flat_outs[0]._node = node
    else:
        for k, o in enumerate(flat_outs):
            if o is not None:
                o._node = node
                o._out_index = k


def _record_plain(info: OpInfo, attrs: dict, entry: list | None, tensors: list, args: list,
                  results, flat_outs) -> None:
    """``_record`` for an op without duplicable slots whose backward is its derived grad op."""
    edges = []
    for i in info.diff_slots:
        t = tensors[i]
        if t is None or t.stop_gradient:
            edges.append(None)
        else:
            node = t._node
            edges.append((node, t._out_index, None) if node is not None else (None, 0, t))
    n_outputs = len(flat_outs)
    node = OpNode(info, attrs, edges, n_outputs)
    node.bound = entry
    node.saved = info.pick_saved((*args, *results))
    if info.saved_inputs:
        node.versions = [(t, t._version) for t in info.pick_saved_inputs(tensors)
                         if t is not None]
    if n_outputs == 1:
        flat_outs[0]._node = node
        return
    node.out_meta = [(o._array.shape, o._array.dtype) if o is not None else None
                     for o in flat_outs]
    for k, o in enumerate(flat_outs):
        if o is not None:
            o._node = node
            o._out_index = k


class OpNode(Node):
    """The backward step of one recorded op."""

    __slots__ = ("info", "attrs", "bound", "saved", "versions", "out_meta", "layout",
                 "out_layout")

    def __init__(self, info: OpInfo, attrs: dict, edges: list, n_outputs: int):
        self.edges = edges
        self.n_outputs = n_outputs
        self.released = False
        self.seq = next(NODE_NUMBERS)
        self.info = info
        self.attrs = attrs
        self.bound = None     # the op's ``OpInfo.bound`` entry (caches the grad kernel)
        self.versions = ()
        self.out_meta = None
        self.layout = ()      # per differentiable slot: tensor count if duplicable, else -1
        self.out_layout = ()  # per output slot: output count if duplicable, else -1

    @property
    def name(self) -> str:
        return f"{self.info.opdef.type}_grad"

    def release(self) -> None:
        self.released = True
        self.saved = None
        self.versions = ()

    def apply(self, grads: list) -> list:
        for t, version in self.versions:
            if t._version != version:
                self.check_versions()
        info = self.info
        if info.direct_grad:
            entry = self.bound or info.bound(self.attrs)
            kernel, kwargs = entry[2] or info.bound_grad(entry, self.attrs)
            if info.takes_wanted:
                kwargs = {**kwargs, "wanted": tuple([e is not None for e in self.edges])
                          if info.all_differentiable else self.wanted()}
            args = (*self.saved, *grads)
            try:
                result = kernel(*args, **kwargs)
            except Exception as exc:
                raise _explain(info.grad_def.type, info.grad_def.inputs, args, exc) from exc
            return [result] if info.single_diff else list(result)
        if info.grad_def is None:
            return apply_grad_specs(self, grads, graph=False)
        if info.dup_outputs and info.grad_def is not None:
            grads = self.grads_per_output_slot(grads)
        if info.saved_then_dout and self.n_outputs == 1:   # its gradient is never None here
            args = self.saved + grads
        else:
            args, saved = [], iter(self.saved)
            for is_dout, index, _ in info.grad_args:
                if is_dout:
                    g = grads[index]
                    if g is None:
                        shape, dtype = self.out_meta[index]
                        g = np.zeros(shape, dtype)
                    args.append(g)
                else:
                    args.append(next(saved))
        entry = self.bound or info.bound(self.attrs)
        kernel, kwargs = entry[2] or info.bound_grad(entry, self.attrs)
        if info.grad_def.takes_wanted:       # skip gradients no edge reads (a data input's)
            kwargs = {**kwargs, "wanted": self.wanted()}
        try:
            result = kernel(*args, **kwargs)
        except Exception as exc:
            raise _explain(info.grad_def.type, info.grad_def.inputs, args, exc) from exc
        if len(info.diff_slots) == 1:
            return [result] if not info.has_duplicable else self.flatten((result,))
        return self.flatten(result)

    def grads_per_output_slot(self, grads: list) -> list:
        """The flat output gradients regrouped by output slot, a list for a duplicable slot
        (zeros where an output got no gradient)."""
        per_slot, k = [], 0
        for count in self.out_layout:
            span = range(k, k + max(count, 1))
            items = [grads[j] if grads[j] is not None else np.zeros(*self.out_meta[j])
                     for j in span if grads[j] is not None or self.out_meta[j] is not None]
            per_slot.append(items if count >= 0 else (items[0] if items else None))
            k = span.stop
        return per_slot

    def apply_graph(self, grads: list) -> list:
        """``apply`` with Tensor gradients, run as recorded ops (``create_graph``)."""
        self.check_versions()
        if self.info.grad_def is None:
            return apply_grad_specs(self, grads, graph=True)
        return self.flatten(run_grad_op_on_tape(self, grads))

    def check_versions(self) -> None:
        for t, version in self.versions:
            if t._version != version:
                raise RuntimeError(
                    f"(PermissionDenied) Tensor '{t.name}' used in gradient computation has been "
                    f"modified by an inplace operation. Its version is {t._version} but the "
                    f"expected version is {version}. Please fix your code to void calling an "
                    "inplace operator after using the Tensor which will used in gradient "
                    f"computation.\n  [Hint: Expected tensor_version == wrapper_version_snapshot, "
                    f"but received tensor_version:{t._version} != "
                    f"wrapper_version_snapshot:{version}.]")

    def flatten(self, per_slot) -> list:
        """Gradients per differentiable slot -> one per edge."""
        if not self.info.has_duplicable:
            return list(per_slot)
        flat = []
        for g, count in zip(per_slot, self.layout):
            if count < 0:
                flat.append(g)
            else:
                flat.extend(g if g is not None else [None] * count)
        return flat

    def slot_edges(self, i: int) -> list | None:
        """The edges of forward input slot ``i`` (None for a slot that takes no gradient)."""
        k = 0
        for pos, j in enumerate(self.info.diff_slots):
            count = self.layout[pos] if self.layout and self.layout[pos] >= 0 else 1
            if j == i:
                return self.edges[k:k + count]
            k += count
        return None

    def wanted(self) -> tuple:
        """Per forward input slot: whether any of its tensors takes a gradient."""
        info = self.info
        if not self.layout and len(info.diff_slots) == len(info.inputs):
            return tuple([edge is not None for edge in self.edges])
        return tuple(any(e is not None for e in self.slot_edges(i) or ())
                     for i in range(len(info.inputs)))


def _explain(op_type: str, slots: tuple, args: list, exc: Exception) -> Exception:
    shapes = []
    for slot, value in zip(slots, args):
        if isinstance(value, list):
            desc = "[" + ", ".join(f"{v.dtype}{list(v.shape)}" for v in value) + "]"
        else:
            desc = "None" if value is None else f"{value.dtype}{list(value.shape)}"
        shapes.append(f"{slot.name}={desc}")
    message = (f"{exc}\n  while running op '{op_type}' eagerly on inputs "
               f"{', '.join(shapes) or '(none)'}")
    try:
        return type(exc)(message)
    except Exception:
        return exc


# backward helpers and the per-op-type runners, built on the classes above
from .fast_run import compile_run  # noqa: E402
from .grad_specs import apply_grad_specs  # noqa: E402
from .higher_order import run_grad_op_on_tape  # noqa: E402
