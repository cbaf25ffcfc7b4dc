"""The op registry: one small declaration per op, used by program construction, the static
Executor, autodiff and eager mode alike.

An op is declared with :func:`register_op` and completed with decorators (this example runs:
tests/test_registry_docstring.py executes it under another op name)::

    relu = register_op("relu", inputs=["X"], outputs=["Out"], infer_shape=same_as(0),
                       fresh_outputs=True)

    @relu.def_kernel
    def relu_kernel(x):
        return np.maximum(x, 0)

    @relu.def_grad
    def relu_grad(out, dout):            # names pick the slots: X -> x, Out -> out, Out@GRAD -> dout
        return dout * (out > 0)           # one gradient per forward input slot (None = no gradient)

Slot specs: ``"X"`` one variable, ``"X*"`` duplicable (a list), ``"X?"`` dispensable (may be
absent; the kernel then gets None). Attribute specs: ``{"axis": -1}`` infers the AttrType from
the default; ``{"shape": (AttrType.LONGS, [])}`` states it. ``extra_attrs`` declares Paddle's
"extra" attributes (``use_cudnn``, ``data_format``...): accepted, but not filled in by default.
``extra_outputs=["XShape"]`` marks output slots Paddle declares ``AsExtra()`` (XShape, dropout's
Mask, batch_norm's ReserveSpace): they are dispensable, training programs keep them for the grad
ops, and ``save_inference_model`` drops them from the saved program, as Paddle's
``_remove_training_info(clip_extra=True)`` does; kernels still return a value for them.
``runtime_shaped=["OutIndex"]`` marks outputs whose shape and dtype only the run decides
(Paddle's compile-time inference leaves them unset or provisional: tensor_array_to_tensor's
OutIndex, the branch select_input picks): the debug checks do not compare them with their
variables' declarations.

Kernels take the inputs positionally in declared slot order plus the declared attributes they
name as keywords, and return one value per output slot (a tuple when there are several).
``def_grad`` derives the ``<type>_grad`` op (Paddle's default grad-op maker): its inputs are the
forward slots and ``<Out>@GRAD`` slots that the grad function names, its outputs
``<In>@GRAD``; broadcast gradients are reduced to the input's shape here, in one place. A
rule may take a keyword ``wanted`` (one bool per forward input slot): the grad op then tells it
which gradients it writes, so costly unused ones (a data input's) are never computed.

Kernels are pure and return arrays that share no buffer with their inputs, unless the op
declares otherwise: ``views_input=True`` (outputs may be views of the first input),
``may_alias=True`` (outputs may be anything, an input itself included). ``fresh_outputs=True``
promises newly allocated outputs that a later in-place kernel may overwrite, and
``def_inplace_kernel(ParamOut="Param")`` adds a kernel that updates an input's buffer. The
registry derives ``OpDef.aliasing`` from these (see :class:`Aliasing`);
tests/test_op_aliasing.py checks every registered kernel against it.
"""
from __future__ import annotations

import difflib
import inspect
import math
from typing import Callable, Sequence

import numpy as np

from .types import AttrType

from .declaration import (  # noqa: F401  (re-exported: op authors and the framework use them)
    ANY, COMMON_ATTRS, EMPTY_VAR, FRESH, GRAD_SUFFIX, ROLE_BACKWARD, ROLE_FORWARD, ROLE_LOSS,
    ROLE_LRSCHED, ROLE_NOT_SPECIFIED, ROLE_OPTIMIZE, VIEWS, Aliasing, AttrSpec, Slot,
    declared_aliasing, grad_name, mark_extra, parse_attr, parse_slot, slot_names)


class OpDef:
    """Everything pyfluid knows about one op type."""

    def __init__(self, type: str, inputs: Sequence[str] = (), outputs: Sequence[str] = (),
                 attrs: dict | None = None, infer_shape: Callable | None = None,
                 no_grad: Sequence[str] = (), differentiable: bool = True,
                 has_kernel: bool = True, extra_attrs: dict | None = None,
                 views_input: bool = False, foldable: bool = False,
                 extra_outputs: Sequence[str] = (), fresh_outputs: bool = False,
                 may_alias: bool = False, reads_outputs: Sequence[str] = (),
                 runtime_shaped: Sequence[str] = (), never_raises: bool = False,
                 undone_in_backward: bool = False):
        self.type = type
        self.inputs = tuple(parse_slot(s) for s in inputs)
        self.outputs = mark_extra(type, tuple(parse_slot(s) for s in outputs), extra_outputs)
        self.attrs = {k: parse_attr(k, v) for k, v in (attrs or {}).items()}
        # Paddle's "extra" attrs (use_cudnn, data_format, ...): accepted and kept when given,
        # never filled in by default (saved models omit them) and never passed to kernels.
        self.extra_attrs = {k: parse_attr(k, v) for k, v in (extra_attrs or {}).items()}
        self.infer_shape = infer_shape
        # -- how it runs
        self.has_kernel = has_kernel                # False: handled by the executor (feed/fetch)
        self.kernel: Callable | None = None
        self.kernel_attrs: tuple = ()               # the declared attrs the kernel takes
        self.specialize: Callable | None = None     # attrs -> faster kernel (optional)
        self.op_kernel: Callable | None = None      # (op) -> kernel bound to one op's slots
        self.inplace_kernel: Callable | None = None  # same signature, updates inputs in place
        self.foldable = foldable                    # without inputs, the same value every run
        # output slots whose current values (None when unset) the kernel also takes, after the
        # inputs: ops that update a container (write_to_array) or leave outputs as they were
        self.reads_outputs = tuple(reads_outputs)
        self.runtime_shaped = frozenset(runtime_shaped)   # output slots checks leave alone
        # the kernel cannot raise on inputs an earlier, successful op of the program produced
        # (arithmetic on consistent shapes: no data-dependent checks, no user code). Updates
        # run in place only after the last op that may raise, so a failed run changes nothing
        self.never_raises = never_raises
        # -- what its outputs may share a buffer with (all aliasing facts, one object)
        self.aliasing = declared_aliasing(self.inputs, views_input, fresh_outputs, may_alias)
        # -- its gradient
        self.no_grad = frozenset(no_grad)          # input slots that never get a gradient
        self.differentiable = differentiable
        self.undone_in_backward = undone_in_backward  # state grad ops read; grad maker undoes
        self.grad_fn: Callable | None = None
        self.grad_maker: Callable | None = None     # custom: (op, no_grad_names) -> [op specs]
        # -- as a grad op derived from a forward op's rule
        self.forward: OpDef | None = None
        self.takes_wanted = False                   # the rule skips gradients nobody reads
        self.shape_only: frozenset = frozenset()    # input slots read only for shape/dtype
        self._attr_types: tuple | None = None

    def __repr__(self) -> str:
        return f"OpDef({self.type!r})"

    # -- declaration decorators -------------------------------------------------------------
    def def_kernel(self, fn: Callable) -> Callable:
        self.kernel = fn
        self.kernel_attrs = _keyword_names(fn, self.attrs)
        return fn

    def def_infer_shape(self, fn: Callable) -> Callable:
        self.infer_shape = fn
        return fn

    def def_specialize(self, fn: Callable) -> Callable:
        """``fn(**attrs) -> kernel or None``: a faster kernel for these attribute values."""
        self.specialize = fn
        return fn

    def def_grad_maker(self, fn: Callable) -> Callable:
        self.grad_maker = fn
        return fn

    def def_inplace_kernel(self, **pairs: str) -> Callable:
        """Declare a kernel that writes each output slot into the buffer of its input slot
        (``ParamOut="Param"``). The Executor uses it when the op names the same variable on
        both sides and no other live value shares that buffer; otherwise the pure kernel."""
        def register_kernel(fn: Callable) -> Callable:
            self.inplace_kernel = fn
            self.aliasing = self.aliasing._replace(inplace=dict(pairs))
            return fn
        return register_kernel

    def def_op_kernel(self, fn: Callable) -> Callable:
        """``fn(op) -> kernel`` for ops whose kernel depends on the op's own slots and vars
        (py_func: output count, @EMPTY@ outputs, declared shapes); used by the Executor.
        Such kernels run user code: their outputs may be anything (``ANY``)."""
        self.op_kernel = fn
        self.aliasing = self.aliasing._replace(kind=ANY, sources=slot_names(self.inputs),
                                               owned=False)
        return fn

    def def_grad(self, fn: Callable | None = None, *, exact: bool = False,
                 shape_only: Sequence[str] = (), never_raises: bool = False) -> Callable:
        """Declare the grad rule (``@op.def_grad``). ``@op.def_grad(exact=True)`` promises that
        the rule already returns one gradient per *differentiable* input slot, each with its
        input's shape: the derived grad op then runs the rule itself, without the generic
        wrapper (used for the ops on every training step's hot path). ``shape_only`` names
        forward slots (``"x"`` or ``"X"``) the rule reads only for their shape and dtype (Paddle's
        no-need-buffer inputs): the Executor may overwrite such a value before the grad op runs.
        ``never_raises``: the grad op's (see ``OpDef.never_raises``)."""
        def declare(rule: Callable) -> Callable:
            self.grad_fn = rule
            grad_def = _derive_grad_op(self, rule, exact)
            grad_def.shape_only = _shape_only_slots(grad_def, shape_only)
            grad_def.never_raises = never_raises
            register(grad_def)
            return rule
        return declare(fn) if fn is not None else declare

    # -- queries ----------------------------------------------------------------------------
    def slot(self, name: str, outputs: bool = False) -> Slot | None:
        for s in (self.outputs if outputs else self.inputs):
            if s.name == name:
                return s
        return None

    @property
    def grad_op_type(self) -> str:
        return self.type + "_grad"

    def attr_spec(self, name: str) -> AttrSpec | None:
        return self.attrs.get(name) or self.extra_attrs.get(name) or COMMON_ATTRS.get(name)

    @property
    def attr_types(self) -> dict[str, AttrType]:
        """AttrType of every declared and common attribute, by name (memoized)."""
        attrs = self.attrs
        if self._attr_types is None or self._attr_types[0] != (id(attrs), len(attrs)):
            table = {k: s.type for k, s in COMMON_ATTRS.items()}
            table.update({k: s.type for k, s in self.extra_attrs.items()})
            table.update({k: s.type for k, s in attrs.items()})
            self._attr_types = ((id(attrs), len(attrs)), table)
        return self._attr_types[1]

    def bound_kernel(self, attrs: dict, op=None) -> tuple[Callable, dict]:
        """The kernel for these attrs (or this op) and the keyword arguments it must receive."""
        if self.op_kernel is not None and op is not None:
            return self.op_kernel(op), {}
        if self.specialize is not None:
            fast = self.specialize(**{k: attrs.get(k, s.default) for k, s in self.attrs.items()})
            if fast is not None:
                return fast, {}
        if self.kernel is None:
            raise NotImplementedError(f"op '{self.type}' has no kernel")
        kwargs = {k: attrs.get(k, self.attrs[k].default) for k in self.kernel_attrs}
        if self.takes_wanted and op is not None:
            kwargs["wanted"] = self.wanted_gradients(op)
        return self.kernel, kwargs

    def wanted_gradients(self, op) -> tuple:
        """For a derived grad op: per forward input slot, whether ``op`` writes its gradient."""
        return tuple(any(n != EMPTY_VAR for n in op.outputs.get(s.name + GRAD_SUFFIX, ()))
                     for s in self.forward.inputs)

    def run(self, *inputs, **attrs):
        """Run the kernel once on concrete values (used by eager mode and tests)."""
        kernel, kwargs = self.bound_kernel(attrs)
        return kernel(*inputs, **kwargs)

    def make_grad_ops(self, op, no_grad_names: set) -> list[dict]:
        """Grad op specs for one forward op (Paddle's grad-op maker)."""
        if self.grad_maker is not None:
            return self.grad_maker(op, no_grad_names)
        if self.grad_fn is None:
            return []
        return [default_grad_op_spec(self, op, no_grad_names)]


def _keyword_names(fn: Callable, declared: dict) -> tuple:
    if isinstance(fn, np.ufunc):        # NumPy < 2.1 ufuncs have no signature; they take no attrs
        return ()
    params = inspect.signature(fn).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return tuple(declared)
    names = [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return tuple(k for k in declared if k in names)


def default_grad_op_spec(fwd: OpDef, op, no_grad_names: set) -> dict:
    grad_def = get_op(fwd.grad_op_type)
    inputs = {}
    for slot in grad_def.inputs:
        if slot.name.endswith(GRAD_SUFFIX):
            inputs[slot.name] = [grad_name(n) for n in op.output(slot.name[:-len(GRAD_SUFFIX)])]
        else:
            inputs[slot.name] = list(op.input(slot.name) if fwd.slot(slot.name)
                                     else op.output(slot.name))
    outputs = {}
    for slot in grad_def.outputs:
        names = op.input(slot.name[:-len(GRAD_SUFFIX)])
        outputs[slot.name] = [EMPTY_VAR if grad_name(n) in no_grad_names else grad_name(n)
                              for n in names]
    attrs = {k: v for k, v in op.attrs.items() if k in fwd.attrs}
    return {"type": grad_def.type, "inputs": inputs, "outputs": outputs, "attrs": attrs}


def _derive_grad_op(fwd: OpDef, fn: Callable, exact: bool = False) -> OpDef:
    """Build ``<type>_grad`` from a grad function whose parameter names pick its slots."""
    by_param = {s.name.lower(): s for s in fwd.inputs + fwd.outputs}
    by_param.update({"d" + s.name.lower(): Slot(s.name + GRAD_SUFFIX, s.duplicable, True)
                     for s in fwd.outputs})
    in_slots, attr_names = [], []
    for p in inspect.signature(fn).parameters.values():
        if p.kind == p.KEYWORD_ONLY and p.name == "wanted":
            continue  # per-input flags: the grad op passes which gradients it writes
        if p.kind == p.KEYWORD_ONLY:
            if p.name not in fwd.attrs:
                raise TypeError(f"grad of '{fwd.type}': keyword '{p.name}' is not an attr of the op")
            attr_names.append(p.name)
        elif p.name in by_param:
            in_slots.append(by_param[p.name])
        else:
            raise TypeError(f"grad of '{fwd.type}': parameter '{p.name}' names no slot; "
                            f"choose from {sorted(by_param)}")
    diff_slots = [s for s in fwd.inputs if s.name not in fwd.no_grad]
    grad_def = OpDef(fwd.grad_op_type, differentiable=False)
    grad_def.inputs = tuple(in_slots)
    grad_def.outputs = tuple(Slot(s.name + GRAD_SUFFIX, s.duplicable, True) for s in diff_slots)
    grad_def.attrs = dict(fwd.attrs)
    grad_def.forward = fwd
    # identity gradients return the incoming gradient (or a view of it) as it is
    grad_def.aliasing = Aliasing(ANY, tuple(s.name for s in in_slots
                                            if s.name.endswith(GRAD_SUFFIX)))
    grad_def.kernel = fn if exact else _grad_kernel(fwd, fn, in_slots, diff_slots)
    grad_def.kernel_attrs = tuple(attr_names)
    grad_def.takes_wanted = "wanted" in inspect.signature(fn).parameters
    return grad_def


def _shape_only_slots(grad_def: OpDef, names: Sequence[str]) -> frozenset:
    by_lower = {s.name.lower(): s.name for s in grad_def.inputs if not s.name.endswith(GRAD_SUFFIX)}
    unknown = [n for n in names if n.lower() not in by_lower]
    if unknown:
        raise TypeError(f"grad of '{grad_def.forward.type}': shape_only {unknown} names no forward "
                        f"slot the rule reads; choose from {sorted(by_lower)}")
    return frozenset(by_lower[n.lower()] for n in names)


def _grad_kernel(fwd: OpDef, fn: Callable, in_slots: list, diff_slots: list) -> Callable:
    """The derived grad op's kernel: call the rule, pick differentiable slots, unbroadcast."""
    n_inputs = len(fwd.inputs)
    # per differentiable input slot: (its index, the grad op input holding its forward value
    # or None, whether it is duplicable) - decided once here, not on every call
    plan = []
    for i, fs in enumerate(fwd.inputs):
        if fs.name not in fwd.no_grad:
            like = next((j for j, s in enumerate(in_slots) if s.name == fs.name), None)
            plan.append((i, like, fs.duplicable))
    single = len(plan) == 1

    def kernel(*values, **attrs):
        grads = fn(*values, **attrs)
        if n_inputs == 1 or not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != n_inputs:
            raise ValueError(f"grad rule of '{fwd.type}' returned {len(grads)} gradients, "
                             f"expected one per input slot ({n_inputs})")
        out = []
        for i, like, duplicable in plan:
            g = grads[i]
            if like is not None and g is not None:
                ref = values[like]
                if duplicable:
                    g = [unbroadcast(a, b) for a, b in zip(g, ref)]
                elif ref is not None and g.shape != ref.shape:
                    g = unbroadcast(g, ref)
            out.append(g)
        return out[0] if single else tuple(out)

    kernel.__name__ = f"{fwd.type}_grad_kernel"
    return kernel


def unbroadcast(grad, like):
    """Reduce a broadcast gradient to the shape of ``like`` (an array or a shape)."""
    shape = getattr(like, "shape", None)
    if shape is None:
        shape = tuple(like)
    if grad is None or not isinstance(grad, np.ndarray) or grad.shape == shape:
        return grad
    if grad.size == math.prod(shape):
        return grad.reshape(shape)
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


# -- the registry ----------------------------------------------------------------------------
_OPS: dict[str, OpDef] = {}


class UnknownOpError(ValueError):
    """An op type that is not registered."""


def register(opdef: OpDef) -> OpDef:
    if opdef.type in _OPS:
        raise ValueError(f"op '{opdef.type}' is registered twice")
    _OPS[opdef.type] = opdef
    return opdef


def register_op(type: str, **kwargs) -> OpDef:
    """Declare an op; see the module docstring."""
    return register(OpDef(type, **kwargs))


def get_op(type: str) -> OpDef:
    try:
        return _OPS[type]
    except KeyError:
        close = difflib.get_close_matches(type, _OPS, n=5)
        hint = f"Did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        error = UnknownOpError(f'Operator "{type}" has not been registered.')   # Paddle's text
        error.__notes__ = [f"{hint}({len(_OPS)} ops are registered; see "
                           "pyfluid.ops.registered_ops())"]     # shown in tracebacks
        raise error from None


def has_op(type: str) -> bool:
    return type in _OPS


def registered_ops() -> list[str]:
    return sorted(_OPS)


# -- shape-inference helpers used by many declarations ----------------------------------------
def same_as(slot_index: int = 0) -> Callable:
    """Infer-shape rule: every output is like input number ``slot_index`` (a position in the
    declared input slots, not a name)."""
    if not isinstance(slot_index, int):
        raise TypeError(f"same_as takes the position of an input slot, got {slot_index!r}")
    def infer(*metas, **_):
        return metas[slot_index]
    return infer
