"""A checked PIR module (:mod:`.decode`) -> a pyfluid Program in Paddle's legacy form, as
``load_inference_model`` returns for a ``.pdmodel``: feed ops, the ops, fetch ops.

Every PIR value becomes a variable (parameters and feeds keep their names, the rest are
named ``<op>_<n>.tmp_<k>`` as Paddle names temporaries); each op goes through its line in
:mod:`.op_table` or a hook of :mod:`.lower_special` / :mod:`.lower_control`. A PIR *mutable
attribute* produced by a constant op becomes the legacy attribute; the constant op is kept
only if some op still reads it as a tensor."""
from __future__ import annotations

from typing import Any, Callable

from ...framework.desc_reader import ARG_COST, OP_COST, VAR_COST
from ...framework.operator import Operator, normalize_attrs, normalize_slots
from ...framework.program import Program
from ...framework.variable import Parameter
from ...ops.registry import has_op, get_op
from ...ops.types import VarType
from . import lower_control, lower_special
from .decode import PirBlock, PirModule, PirOp, too_many_objects
from .op_table import SPECS, OpSpec
from .schema import ARRAY, SELECTED_ROWS, VECTOR, Dtype, PirFormatError, PirType

_VAR_KINDS = {ARRAY: VarType.LOD_TENSOR_ARRAY, SELECTED_ROWS: VarType.SELECTED_ROWS}
CONSTANT_OPS = ("fill_constant", "assign_value")
CONSTANT_PRODUCERS = ("pd_op.full", "pd_op.full_int_array")


class UnsupportedPirOp(PirFormatError):
    """A PIR op pyfluid cannot run (no legacy counterpart known, or not implemented)."""


class Lowerer:
    def __init__(self, module: PirModule):
        self.module = module
        self.program = Program()
        self.names: dict[int, Any] = {0: None}      # value id -> var name (list for vectors)
        self.types: dict[int, PirType | None] = {}
        self.producers: dict[int, Any] = {}         # value id -> constant op, or op name
        self.feeds: list[str] = []
        self.fetches: dict[int, str] = {}           # col -> var name
        self.parameters: list[str] = []
        self._counters: dict[str, int] = {}
        self._used: set[str] = set()
        self._budget = module.budget

    def charge(self, nbytes: int) -> None:
        self._budget -= nbytes
        if self._budget < 0:
            raise too_many_objects(self.module.size)

    # -- values and variables ---------------------------------------------------------------
    def name(self, vid: int, op: PirOp) -> Any:
        if vid not in self.names:
            raise PirFormatError(f"{op.where}: operand %{vid} is used before any op defines it")
        return self.names[vid]

    def tensor(self, vid: int, op: PirOp) -> str:
        name = self.name(vid, op)
        if not isinstance(name, str):
            raise PirFormatError(f"{op.where}: operand %{vid} is "
                                 f"{'a vector' if name else 'null'}, expected a tensor")
        return name

    def fresh(self, prefix: str) -> str:
        while True:
            n = self._counters.get(prefix, 0)
            self._counters[prefix] = n + 1
            name = f"{prefix}_{n}.tmp_0" if not prefix.startswith("_") else f"{prefix}_{n}"
            if name not in self._used:
                return name

    def define(self, block, vid: int, ptype: PirType | None, name: str | None = None,
               prefix: str = "tmp", op: PirOp | None = None, **flags) -> Any:
        """Create the variable(s) of value ``vid`` and remember its name."""
        if vid in self.names:
            raise PirFormatError(f"{op.where if op else 'a block'}: value %{vid} is defined twice")
        if ptype is not None and ptype.kind == VECTOR:
            names = [self.define_var(block, item, self.fresh(prefix)) for item in ptype.items]
            self.names[vid], self.types[vid] = names, ptype
            return names
        name = self.define_var(block, ptype, name or self.fresh(prefix), **flags)
        self.names[vid], self.types[vid] = name, ptype
        return name

    def define_var(self, block, ptype: PirType | None, name: str, **flags) -> str:
        if name in self._used and block._find_var_recursive(name) is not None:
            return name
        self._used.add(name)
        self.charge(VAR_COST)
        if ptype is None:
            block.create_var(name=name, **flags)
        else:
            block.create_var(name=name, type=_VAR_KINDS.get(ptype.kind, VarType.LOD_TENSOR),
                             shape=list(ptype.dims), dtype=ptype.dtype, **flags)
        return name

    def alias(self, vid: int, name: Any, ptype: PirType | None = None) -> None:
        self.names[vid] = name
        self.types[vid] = ptype

    def define_parameter(self, op: PirOp) -> None:
        (vid, ptype), = op.results
        name = op.attr("parameter_name")
        if name in self._used:
            raise PirFormatError(f"{op.where}: parameter '{name}' is defined twice")
        if ptype is None or ptype.kind != "tensor":
            raise PirFormatError(f"{op.where}: parameter '{name}' is not a dense tensor")
        block = self.program.global_block()
        self._used.add(name)
        if op.attr("persistable") and op.attr("trainable") and all(d >= 0 for d in ptype.dims):
            var = Parameter(block, name, list(ptype.dims), ptype.dtype)
            block._add_var(var)
        else:
            block.create_var(name=name, shape=list(ptype.dims), dtype=ptype.dtype,
                             persistable=op.attr("persistable"), stop_gradient=True)
        if op.attr("persistable"):
            self.parameters.append(name)
        self.names[vid], self.types[vid] = name, ptype

    # -- constants ----------------------------------------------------------------------------
    def constant(self, vid: int) -> Any:
        """The value of a ``full_int_array`` (list) or one-element ``full`` (number) result,
        or None when ``vid`` is computed at run time."""
        producer = self.producers.get(vid)
        if not isinstance(producer, PirOp):
            return None
        if producer.name == "pd_op.full_int_array":
            return [int(v) for v in producer.attr("value", [])]
        if producer.name == "pd_op.full" and all(d == 1 for d in producer.attr("shape", [])):
            return producer.attr("value")
        return None

    # -- emitting legacy ops ------------------------------------------------------------------
    def emit(self, block, op_type: str, inputs: dict, outputs: dict, attrs: dict,
             source: PirOp) -> Operator:
        if not has_op(op_type):
            raise UnsupportedPirOp(f"{source.where}: it needs Paddle's legacy op '{op_type}', "
                                   "which pyfluid does not implement yet")
        opdef = get_op(op_type)
        kept = {k: (v.value if isinstance(v, Dtype) else v) for k, v in attrs.items()
                if opdef.attr_spec(k) is not None}
        kept = {k: (-1 if v is None and isinstance(attrs[k], Dtype) else v)
                for k, v in kept.items()}
        try:
            in_slots = normalize_slots(opdef, inputs, outputs=False)
            out_slots = normalize_slots(opdef, outputs, outputs=True)
            full_attrs = normalize_attrs(opdef, kept, 0)
        except ValueError as exc:
            raise PirFormatError(f"{source.where}: as legacy '{op_type}': {exc}") from None
        self.charge(OP_COST + ARG_COST * sum(map(len, (*in_slots.values(),
                                                        *out_slots.values()))))
        op = Operator(block, op_type, in_slots, out_slots, full_attrs, site="<PIR program>")
        block.ops.append(op)
        return op

    # -- the walk -----------------------------------------------------------------------------
    def lower_block(self, pblock: PirBlock, block) -> None:
        for index, op in enumerate(pblock.ops):
            pblock.ops[index] = None        # freed once lowered (constants stay in producers)
            keep = op if op.name in CONSTANT_PRODUCERS else op.name
            for vid, _ in op.results:
                self.producers[vid] = keep
            hook = HOOKS.get(op.name)
            if hook is not None:
                hook(self, op, block)
                continue
            spec = SPECS.get(op.name) or _inplace_spec(op.name)
            if spec is None:
                raise UnsupportedPirOp(f"{op.where}: pyfluid has no legacy counterpart for PIR "
                                       f"op '{op.name}'")
            lower_generic(self, op, block, spec)


def _inplace_spec(name: str) -> OpSpec | None:
    """``pd_op.relu_`` (an in-place variant Paddle writes) runs as ``pd_op.relu``."""
    return SPECS.get(name[:-1]) if name.endswith("_") else None


def lower_generic(lw: Lowerer, op: PirOp, block, spec: OpSpec,
                  attrs: dict | None = None, op_type: str | None = None) -> Operator:
    """One PIR op -> one legacy op through its table line. ``attrs`` adds legacy attrs."""
    if len(op.operands) != len(spec.operands) or len(op.results) != len(spec.results):
        raise PirFormatError(f"{op.where}: has {len(op.operands)} operands and "
                             f"{len(op.results)} results; Paddle's op has "
                             f"{len(spec.operands)} and {len(spec.results)}")
    inputs, legacy_attrs = {}, dict(attrs or {})
    for i, (operand, vid) in enumerate(zip(spec.operands, op.operands)):
        _lower_operand(lw, op, i, operand, vid, inputs, legacy_attrs)
    for attr in spec.attrs:
        if attr.legacy is not None and attr.name in op.attrs:
            legacy_attrs[attr.legacy] = op.attrs[attr.name]
        elif attr.strict and op.attrs.get(attr.name, attr.default) != attr.default:
            raise UnsupportedPirOp(f"{op.where}: {attr.name}={op.attrs[attr.name]!r} has no "
                                   f"legacy form; pyfluid runs only {attr.name}={attr.default!r}")
    outputs = {}
    short = spec.pir.partition(".")[2]
    for result, (vid, ptype) in zip(spec.results, op.results):
        if result.inplace_of is not None:
            name = lw.tensor(op.operands[result.inplace_of], op)
            lw.alias(vid, name, ptype)
        else:
            name = lw.define(block, vid, ptype, prefix=short, op=op)
        if result.slot is not None:
            outputs[result.slot] = name if isinstance(name, list) else [name]
    return lw.emit(block, op_type or spec.legacy, inputs, outputs, legacy_attrs, op)


def _lower_operand(lw: Lowerer, op: PirOp, i: int, operand, vid: int, inputs: dict,
                   attrs: dict) -> None:
    if operand.kind == "none":
        return
    if vid == 0:
        if operand.kind == "mutable" or operand.optional:
            return
        raise PirFormatError(f"{op.where}: operand {i} ({operand.slot}) is null but required")
    if operand.kind == "slot":
        inputs[operand.slot] = [lw.tensor(vid, op)]
        return
    if operand.kind == "vector":
        names = lw.name(vid, op)
        inputs[operand.slot] = names if isinstance(names, list) else [names]
        return
    if operand.attr is None:        # a constant the legacy op does not take
        return
    value = lw.constant(vid)
    if value is not None:
        attrs[operand.attr] = int(value) if operand.value_kind in ("i32", "i64") else value
        return
    names = lw.name(vid, op)
    slot = operand.list_slot if isinstance(names, list) else operand.slot
    if slot is None:
        producer = lw.producers.get(vid, "a block argument")
        raise UnsupportedPirOp(
            f"{op.where}: its '{operand.attr}' is computed at run time (by "
            f"{getattr(producer, 'name', producer)}); the legacy op takes it only as a constant")
    inputs[slot] = names if isinstance(names, list) else [names]


def drop_unused_constants(program: Program) -> None:
    """Remove constant ops whose outputs only fed mutable attributes (now legacy attrs)."""
    read = {n for block in program.blocks for op in block.ops for n in op.input_arg_names}
    for block in program.blocks:
        kept, removed = [], []
        for op in block.ops:
            if op.type not in CONSTANT_OPS or any(n in read for n in op.output_arg_names):
                kept.append(op)
            else:
                removed += op.output_arg_names
        block.ops = kept
        for name in removed:
            block.vars.pop(name, None)


def lower_module(module: PirModule) -> Lowerer:
    lw = Lowerer(module)
    lw.lower_block(module.block, lw.program.global_block())
    drop_unused_constants(lw.program)
    lower_special.add_feed_fetch_ops(lw)
    lw.program._link_producers()
    lw.program._bump()
    return lw


Lowerer.generic = lower_generic

HOOKS: dict[str, Callable[[Lowerer, PirOp, Any], None]] = {
    **lower_special.HOOKS, **lower_control.HOOKS}
