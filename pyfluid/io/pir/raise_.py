"""A legacy inference Program (feed ops, ops, fetch ops) -> PIR JSON that Paddle 3 loads.

Legacy variables may be written several times (in-place ops, loop bodies); PIR values are
written once. The writer keeps, per block scope, the value each name holds now, so every
read becomes the latest value (SSA renaming). Parameters become ``builtin.parameter`` ops
(the ``.pdiparams`` order, sorted names, is the same in both formats), feeds ``pd_op.data``,
fetches ``pd_op.fetch``; every other op goes through its line of :mod:`.op_table` (legacy
attributes that PIR takes as operands become ``full`` / ``full_int_array`` constants) or a
hook of :mod:`.raise_special` / :mod:`.raise_control`."""
from __future__ import annotations

import json
from typing import Any

from ...framework.program import Program
from ...ops.types import VarType
from ..variables import persistables
from . import raise_control, raise_special
from .op_table import BY_LEGACY, OpSpec
from .schema import (ARRAY, SELECTED_ROWS, TENSOR, VECTOR, Dtype, Place, PirType, compress,
                     encode_attr, encode_type)

PIR_VERSION = 4       # the format Paddle 3.3 writes; Paddle 3.0 reads 1 only, 3.1-3.3 all
_KINDS = {VarType.LOD_TENSOR_ARRAY: ARRAY, VarType.SELECTED_ROWS: SELECTED_ROWS}


class UnsupportedLegacyOp(ValueError):
    """A legacy op the PIR writer has no mapping for."""


class Raiser:
    def __init__(self, program: Program):
        self.program = program
        self.next_id = 1
        self.next_arg = -1
        self.regions = 0
        self.blocks = 0
        self.scopes: list[dict[str, int]] = [{}]
        self.types: dict[int, PirType] = {}
        self.producers: dict[int, str] = {}  # value id -> the PIR op that made it
        self.current: list[dict] = []       # the JSON ops of the block being written

    # -- values -----------------------------------------------------------------------------
    def value(self, name: str, op=None) -> int:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        where = f"op '{op.type}'" if op is not None else "the program"
        raise UnsupportedLegacyOp(f"{where} reads variable '{name}' before any op writes it")

    def has(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def bind(self, name: str, vid: int) -> None:
        self.scopes[-1][name] = vid

    def new_value(self, ptype: PirType) -> int:
        vid = self.next_id
        self.next_id += 1
        self.types[vid] = ptype
        return vid

    def new_arg(self, ptype: PirType) -> int:
        vid = self.next_arg
        self.next_arg -= 1
        self.types[vid] = ptype
        return vid

    def var_type(self, name: str, block) -> PirType:
        var = block._find_var_recursive(name)
        if var is None:
            raise UnsupportedLegacyOp(f"variable '{name}' is not declared")
        kind = _KINDS.get(var.type, TENSOR)
        return PirType(kind, var.dtype, tuple(var.shape))

    # -- ops ----------------------------------------------------------------------------------
    def op(self, name: str, operands: list[int], result_types: list[PirType],
           attrs: list[tuple[str, str, Any]] = (), regions: list | None = None,
           ops: list | None = None, result_attrs: dict | None = None) -> list[int]:
        """Append one PIR op to ``ops`` (the current block's list); return its result ids."""
        results = [self.new_value(t) for t in result_types]
        for vid in results:
            self.producers[vid] = name
        node = {"#": compress(name),
                "A": [{"AT": encode_attr(kind, value), "N": attr} for attr, kind, value in attrs],
                "I": [{"%": v} for v in operands],
                "O": [{"%": v, "TT": encode_type(self.types[v])} for v in results]}
        flags = dict(result_attrs or {})
        if results:
            flags.setdefault("stop_gradient", [True] * len(results))
        node["OA"] = [{"AT": encode_attr("bs", values), "N": key}
                      for key, values in flags.items()]
        if regions is not None:
            node["regions"] = regions(results) if callable(regions) else regions
        (self.current if ops is None else ops).append(node)
        return results

    def constant(self, kind: str, value: Any) -> int:
        """A ``full_int_array`` (kind ``ia``) or one-element ``full`` of dtype ``kind``."""
        if kind == "ia":
            values = [int(v) for v in value]
            return self.op("pd_op.full_int_array", [], [PirType(TENSOR, VarType.INT64,
                                                                (len(values),))],
                           [("value", "i64s", values), ("dtype", "dtype", VarType.INT64),
                            ("place", "place", Place(1))])[0]
        dtype = {"i32": VarType.INT32, "i64": VarType.INT64, "f32": VarType.FP32,
                 "f64": VarType.FP64}[kind]
        return self.op("pd_op.full", [], [PirType(TENSOR, dtype, (1,))],
                       [("shape", "ia", [1]), ("value", "f64", float(value)),
                        ("dtype", "dtype", dtype), ("place", "place", Place(1))])[0]

    def combine(self, vids: list[int]) -> int:
        ptype = PirType(VECTOR, items=tuple(self.types[v] for v in vids))
        return self.op("builtin.combine", vids, [ptype])[0]

    # -- blocks ---------------------------------------------------------------------------------
    def block_json(self, block, args: list[tuple[int, PirType]] = (), bind: dict | None = None,
                   tail=None) -> dict:
        """A JSON block raising ``block``'s ops in a new scope (``bind``: names -> values
        visible first); ``tail(raiser)`` appends the closing ops (a ``cf.yield``)."""
        saved = self.current
        self.current = []
        self.scopes.append(dict(bind or {}))
        name = f"block_{self.blocks}"
        self.blocks += 1
        try:
            self.create_arrays(block)
            for op in block.ops:
                self.raise_op(op, block)
            if tail is not None:
                tail(self)
            return {"#": name, "args": [{"#": vid, "TT": encode_type(t)} for vid, t in args],
                    "ops": self.current}
        finally:
            self.scopes.pop()
            self.current = saved

    def create_arrays(self, block) -> None:
        """A legacy tensor array exists (empty) from the start of its block; PIR creates it."""
        for var in block.vars.values():
            if var.type == VarType.LOD_TENSOR_ARRAY and not self.has(var.name):
                ptype = self.var_type(var.name, block)
                vid, = self.op("pd_op.create_array", [], [ptype],
                               [("dtype", "dtype", Dtype(ptype.dtype))])
                self.bind(var.name, vid)

    def region(self, build) -> dict:
        """A region named in writing order (depth first), holding the block ``build()``."""
        name = f"region_{self.regions}"
        self.regions += 1
        return {"#": name, "blocks": [build()]}

    def raise_op(self, op, block) -> None:
        hook = HOOKS.get(op.type)
        if hook is not None:
            hook(self, op, block)
            return
        spec = BY_LEGACY.get(op.type)
        if spec is None:
            raise UnsupportedLegacyOp(f"op '{op.type}' has no PIR form pyfluid knows, so the "
                                      "program cannot be written as PIR JSON (save it as "
                                      ".pdmodel)")
        raise_generic(self, op, block, spec)


def raise_generic(rs: Raiser, op, block, spec: OpSpec, legacy: dict | None = None,
                  types: list | None = None) -> list[int]:
    """One legacy op -> one PIR op through its table line; ``legacy`` overrides values of
    the op's legacy attributes, ``types`` the result types."""
    legacy = legacy or {}
    operands = [_operand(rs, op, operand, legacy) for operand in spec.operands]
    result_types, bindings = [], []
    first = None
    for result in spec.results:
        names = op.outputs.get(result.slot, []) if result.slot else []
        if result.vector:
            items = tuple(rs.var_type(n, block) for n in names)
            result_types.append(PirType(VECTOR, items=items))
        elif names:
            result_types.append(rs.var_type(names[0], block))
        else:
            result_types.append(_missing_result_type(result.slot, first))
        first = first or result_types[-1]
        bindings.append((result, names))
    pir_attrs = []
    for attr in spec.attrs:
        if attr.legacy is None:
            value = result_types[0].dtype if attr.default == "out" else attr.default
        else:
            value = legacy[attr.legacy] if attr.legacy in legacy else _legacy_attr(op, attr.legacy)
            if value is None:
                raise UnsupportedLegacyOp(f"op '{op.type}' lacks attribute '{attr.legacy}'")
        if attr.kind == "dtype" and not isinstance(value, Dtype):
            value = Dtype(None if value is None or int(value) < 0 else VarType(int(value)))
        pir_attrs.append((attr.name, attr.kind, value))
    results = rs.op(spec.pir, operands, types or result_types, pir_attrs)
    for vid, (result, names) in zip(results, bindings):
        if result.vector:
            parts = rs.op("builtin.split", [vid], list(rs.types[vid].items))
            for n, part in zip(names, parts):
                rs.bind(n, part)
        elif names:
            rs.bind(names[0], vid)
    return results


def _operand(rs: Raiser, op, operand, legacy: dict) -> int:
    if operand.kind == "none":
        return 0
    if operand.kind in ("slot", "vector"):
        names = op.inputs.get(operand.slot, [])
        if not names:
            if operand.optional:
                return 0
            raise UnsupportedLegacyOp(f"op '{op.type}' lacks its input {operand.slot}")
        if operand.kind == "slot":
            return rs.value(names[0], op)
        return rs.combine([rs.value(n, op) for n in names])
    if operand.slot and op.inputs.get(operand.slot):
        return rs.value(op.inputs[operand.slot][0], op)
    if operand.list_slot and op.inputs.get(operand.list_slot):
        return rs.combine([rs.value(n, op) for n in op.inputs[operand.list_slot]])
    value = 0 if operand.attr is None else legacy.get(operand.attr, _legacy_attr(op, operand.attr))
    if value is None:
        raise UnsupportedLegacyOp(f"op '{op.type}' lacks attribute '{operand.attr}'")
    return rs.constant(operand.value_kind, value)


def _legacy_attr(op, name: str) -> Any:
    """The op's attribute, or its declared default (Paddle's files leave out extra attrs)."""
    value = op.attr(name)
    if value is None and op.opdef is not None and op.opdef.attr_spec(name) is not None:
        value = op.opdef.attr_spec(name).default
    return value


def _missing_result_type(slot: str | None, first: PirType | None) -> PirType:
    """A result the legacy op did not keep (dropout's Mask, batch_norm's ReserveSpace)."""
    if slot in ("Mask", "ReserveSpace"):
        return PirType(TENSOR, VarType.UINT8, (-1,))
    return first or PirType(TENSOR, VarType.FP32, (-1,))


def raise_program(program: Program) -> bytes:
    """The module op's region_0/block_0 holds the parameters, then the program's ops."""
    rs = Raiser(program)
    rs.regions = rs.blocks = 1
    block = program.global_block()
    raise_special.parameters(rs, persistables(program), block)
    rs.create_arrays(block)
    feeds = sorted((op for op in block.ops if op.type == "feed"), key=lambda op: op.attr("col"))
    for op in feeds + [op for op in block.ops if op.type != "feed"]:
        rs.raise_op(op, block)
    module = {"base_code": {"magic": "pir", "trainable": True, "version": PIR_VERSION},
              "program": {"regions": [{"#": "region_0", "blocks": [
                  {"#": "block_0", "args": [], "ops": rs.current}]}]}}
    return json.dumps(module, separators=(",", ":")).encode()


HOOKS = {**raise_special.HOOKS, **raise_control.HOOKS}
