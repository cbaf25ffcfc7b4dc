"""Running one registered op eagerly, and recording it on the tape.

``run_op`` calls the kernel the static Executor would call (``OpDef.bound_kernel``) and, when
an input needs a gradient, records an :class:`OpNode`. Backward runs the derived
``<type>_grad`` op's kernel, or, for ops with a custom grad maker, the grad-op specs the
static ``append_backward`` would append: one declaration serves both modes."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.registry import EMPTY_VAR, GRAD_SUFFIX, get_op, grad_name
from .engine import Node, edge_of
from .grad_mode import _GradMode
from .tensor import Tensor


class _OpInfo:
    """What eager mode needs to know about one op type, computed once."""

    def __init__(self, op_type: str):
        self.opdef = opdef = get_op(op_type)
        self.inputs = opdef.inputs
        self.single_output = len(opdef.outputs) == 1
        self.differentiable = opdef.differentiable and (
            opdef.grad_fn is not None or opdef.grad_maker is not None)
        self.diff_slots = tuple(i for i, s in enumerate(opdef.inputs) if s.name not in opdef.no_grad)
        self.has_duplicable = any(s.duplicable for s in opdef.inputs) or any(
            s.duplicable for s in opdef.outputs)
        self.grad_def = None
        self.grad_args: tuple = ()      # per grad-op input: (is_dout, forward index, is_output)
        self.saved_values: tuple = ()   # what a node keeps: (forward index, is_output)
        self.saved_inputs: tuple = ()   # forward input slots among them (version-checked)
        if opdef.grad_fn is not None and opdef.grad_maker is None:
            self.grad_def = get_op(opdef.grad_op_type)
            out_pos = {s.name: i for i, s in enumerate(opdef.outputs)}
            in_pos = {s.name: i for i, s in enumerate(opdef.inputs)}
            args = []
            for slot in self.grad_def.inputs:
                if slot.name.endswith(GRAD_SUFFIX):
                    args.append((True, out_pos[slot.name[:-len(GRAD_SUFFIX)]], True))
                elif slot.name in in_pos:
                    args.append((False, in_pos[slot.name], False))
                else:
                    args.append((False, out_pos[slot.name], True))
            self.grad_args = tuple(args)
            self.saved_values = tuple((index, is_output)
                                      for is_dout, index, is_output in args if not is_dout)
            self.saved_inputs = tuple(index for index, is_output in self.saved_values
                                      if not is_output)
        self._bound: dict = {}          # (grad?, attrs key) -> (kernel, kwargs)

    def bound(self, attrs: dict, grad: bool = False) -> tuple:
        """``OpDef.bound_kernel`` of the op (or its grad op), memoized by attribute values."""
        key = (grad, *attrs.items())
        try:
            found = self._bound.get(key)
        except TypeError:                # list-valued attributes: hash them as tuples
            key = (grad, *((k, tuple(v) if isinstance(v, list) else v) for k, v in attrs.items()))
            try:
                found = self._bound.get(key)
            except TypeError:            # still unhashable: no memo
                key, found = None, None
        if found is None:
            found = (self.grad_def if grad else self.opdef).bound_kernel(attrs)
            if key is not None:
                if len(self._bound) >= _MAX_BOUND:
                    self._bound.clear()
                self._bound[key] = found
        return found


_INFO: dict[str, _OpInfo] = {}
_MAX_BOUND = 256        # memoized attribute sets per op type (scalars vary: keep it bounded)


def _info(op_type: str) -> _OpInfo:
    info = _INFO.get(op_type)
    if info is None:
        info = _INFO[op_type] = _OpInfo(op_type)
    return info


def _as_tensor(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor._wrap(np.asarray(value))


def run_op(op_type: str, inputs: dict, attrs: dict | None = None):
    """Run ``op_type`` on eager Tensors. Returns one Tensor when the op has one output slot,
    else a tuple with one entry per output slot (a list for duplicable slots)."""
    info = _INFO.get(op_type) or _info(op_type)
    attrs = attrs or {}
    tensors: list = []            # per input slot: Tensor, list of Tensors, or None
    args: list = []
    needs_grad = False
    for slot in info.inputs:
        value = inputs.get(slot.name)
        if value is None:
            if not slot.dispensable:
                raise ValueError(f"op '{op_type}': input '{slot.name}' is required but was not "
                                 f"given (received slots {sorted(inputs)})")
            tensors.append(None)
            args.append(None)
        elif slot.duplicable:
            ts = [_as_tensor(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
            tensors.append(ts)
            args.append([t._array for t in ts])
            needs_grad = needs_grad or any(not t.stop_gradient for t in ts)
        else:
            t = value if isinstance(value, Tensor) else _as_tensor(value)
            tensors.append(t)
            args.append(t._array)
            needs_grad = needs_grad or not t.stop_gradient
    kernel, kwargs = info.bound(attrs)
    try:
        result = kernel(*args, **kwargs)
    except Exception as exc:
        raise _explain(op_type, info, args, exc) from exc
    record = needs_grad and info.differentiable and _GradMode.enabled
    if info.single_output and not isinstance(result, list):
        out = Tensor._wrap(result, not record)
        if record:
            _record(info, attrs, tensors, args, (result,), [out])
        return out
    results = (result,) if info.single_output else result
    outs = []
    for value in results:
        if isinstance(value, list):
            outs.append([Tensor._wrap(v, not record) for v in value])
        else:
            outs.append(None if value is None else Tensor._wrap(value, not record))
    if record:
        _record(info, attrs, tensors, args, results,
                [o for out in outs for o in (out if isinstance(out, list) else [out])])
    return outs[0] if info.single_output else tuple(outs)


def _record(info: _OpInfo, attrs: dict, tensors: list, args: list, results: tuple,
            flat_outs: list) -> None:
    edges = []
    for i in info.diff_slots:
        t = tensors[i]
        if t is None:
            edges.append(None)
        elif isinstance(t, list):
            edges.extend(edge_of(x) for x in t)
        else:
            edges.append(edge_of(t))
    node = OpNode(info, attrs, edges, len(flat_outs))
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
        node.saved = (tensors, args, results)
        saved_inputs = range(len(tensors))
    versions = []
    for index in saved_inputs:
        t = tensors[index]
        if isinstance(t, list):
            versions.extend((x, x._version) for x in t)
        elif t is not None:
            versions.append((t, t._version))
    node.versions = versions
    for k, o in enumerate(flat_outs):
        if o is not None:
            o._node = node
            o._out_index = k


class OpNode(Node):
    """The backward step of one recorded op."""

    __slots__ = ("info", "attrs", "saved", "versions", "out_meta", "layout")

    def __init__(self, info: _OpInfo, attrs: dict, edges: list, n_outputs: int):
        self.edges = edges
        self.n_outputs = n_outputs
        self.released = False
        self.info = info
        self.attrs = attrs
        self.versions = ()
        self.out_meta = None
        self.layout = ()      # per differentiable slot: tensor count if duplicable, else -1

    @property
    def name(self) -> str:
        return f"{self.info.opdef.type}_grad"

    def release(self) -> None:
        super().release()
        self.saved = None
        self.versions = ()

    def apply(self, grads: list) -> list:
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
        info = self.info
        if info.grad_def is None:
            return self._apply_grad_maker(grads)
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
        kernel, kwargs = info.bound(self.attrs, grad=True)
        if info.grad_def.takes_wanted:       # skip gradients no edge reads (a data input's)
            kwargs = {**kwargs, "wanted": self._wanted()}
        try:
            result = kernel(*args, **kwargs)
        except Exception as exc:
            raise _explain(info.grad_def.type, info, args, exc) from exc
        if len(info.diff_slots) == 1:
            result = (result,)
        if not info.has_duplicable:
            return list(result)
        flat = []
        for g, count in zip(result, self.layout):
            if count < 0:
                flat.append(g)
            else:
                flat.extend(g if g is not None else [None] * count)
        return flat

    def _wanted(self) -> tuple:
        """Per forward input slot: whether any of its tensors takes a gradient."""
        info = self.info
        if not self.layout and len(info.diff_slots) == len(info.inputs):
            return tuple(edge is not None for edge in self.edges)
        wanted, k = [False] * len(info.inputs), 0
        for pos, i in enumerate(info.diff_slots):
            count = self.layout[pos] if self.layout and self.layout[pos] >= 0 else 1
            wanted[i] = any(edge is not None for edge in self.edges[k:k + count])
            k += count
        return tuple(wanted)

    def _apply_grad_maker(self, grads: list) -> list:
        """Ops with a custom grad maker: run the grad-op specs it builds, by name."""
        tensors, args, results = self.saved
        opdef = self.info.opdef
        env: dict[str, Any] = {}
        fake = _FakeOp(opdef, self.attrs, args, results, env)
        flat_out_names = [n for s in opdef.outputs for n in fake.outputs.get(s.name, [])]
        for name, g in zip(flat_out_names, grads):
            if g is not None:
                env[grad_name(name)] = g
        for spec in opdef.make_grad_ops(fake, set()):
            gdef = get_op(spec["type"])
            gargs = []
            for slot in gdef.inputs:
                names = [n for n in spec["inputs"].get(slot.name, []) if n != EMPTY_VAR]
                values = [_lookup(env, n) for n in names]
                gargs.append(values if slot.duplicable else (values[0] if values else None))
            kernel, kwargs = gdef.bound_kernel(spec.get("attrs", {}))
            out = kernel(*gargs, **kwargs)
            out = (out,) if len(gdef.outputs) == 1 else out
            for slot, value in zip(gdef.outputs, out):
                names = spec["outputs"].get(slot.name, [])
                values = value if slot.duplicable else [value]
                for n, v in zip(names, values):
                    if n != EMPTY_VAR and v is not None:
                        env[n] = env[n] + v if n in env else v
        flat = []
        for i in self.info.diff_slots:
            names = fake.inputs.get(opdef.inputs[i].name, [])
            flat.extend(env.get(grad_name(n)) for n in names)
        return flat


def _lookup(env: dict, name: str):
    """A value by name; the missing gradient of a forward output is zeros (as the static
    backward fills it with ``fill_any_like``)."""
    value = env.get(name)
    if value is None and name.endswith(GRAD_SUFFIX) and name[:-len(GRAD_SUFFIX)] in env:
        value = np.zeros_like(env[name[:-len(GRAD_SUFFIX)]])
    return value


class _FakeOp:
    """The slice of the Operator interface a grad maker reads, with made-up var names."""

    def __init__(self, opdef, attrs: dict, args: list, results: tuple, env: dict):
        """``args``: kernel inputs per input slot; ``results``: values per output slot."""
        self.type = opdef.type
        self.attrs = {k: attrs.get(k, spec.default) for k, spec in opdef.attrs.items()}
        self.inputs: dict = {}
        self.outputs: dict = {}
        for side, slots, values in (("in", opdef.inputs, args), ("out", opdef.outputs, results)):
            target = self.inputs if side == "in" else self.outputs
            for k, (slot, value) in enumerate(zip(slots, values)):
                if value is None:
                    continue
                values_ = value if slot.duplicable else [value]
                names = [f"{side}{k}_{j}" for j in range(len(values_))]
                target[slot.name] = names
                env.update(zip(names, values_))

    def input(self, slot: str) -> list:
        return self.inputs.get(slot, [])

    def output(self, slot: str) -> list:
        return self.outputs.get(slot, [])

    def attr(self, name: str) -> Any:
        return self.attrs[name]


def _explain(op_type: str, info: _OpInfo, args: list, exc: Exception) -> Exception:
    shapes = []
    for slot, value in zip(info.inputs if not op_type.endswith("_grad") else
                           (info.grad_def.inputs if info.grad_def else ()), args):
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
