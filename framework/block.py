"""Blocks: an ordered list of ops over a dict of variables."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..ops.call_site import user_site
from ..ops.registry import get_op
from ..ops.types import Meta, VarType
from . import unique_name
from .desc import BlockDesc
from .errors import ProgramError, ShapeError
from .operator import Operator, normalize_attrs, normalize_slots
from .variable import Parameter, Variable

if TYPE_CHECKING:
    from .program import Program

_CONTROL_FLOW_OPS = frozenset({"while", "conditional_block", "pylayer", "recurrent"})


class Block:
    def __init__(self, program: "Program", idx: int, parent_idx: int = -1,
                 forward_block_idx: int = -1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.forward_block_idx = forward_block_idx
        self.backward_block_idx = -1     # this block's grad block, once built (not serialized)
        self.vars: dict[str, Variable] = {}
        self.ops: list[Operator] = []

    @property
    def desc(self) -> BlockDesc:
        """The block's desc (Paddle's ``block.desc``): a view of this block."""
        return BlockDesc(self)

    # -- variables --------------------------------------------------------------------------
    def var(self, name: str) -> Variable:
        if not isinstance(name, str):
            raise TypeError(f"var require string as parameter, but get {type(name)} instead.")
        try:
            return self.vars[name]
        except KeyError:
            raise ValueError(f"var {name} not in this block") from None

    def has_var(self, name: str) -> bool:
        return name in self.vars

    def _find_var_recursive(self, name: str) -> Variable | None:
        """``name`` in this block or its ancestors; a grad block also sees its forward
        block's (and that block's ancestors') variables, which its ops read."""
        blocks, block, forwards, seen = self.program.blocks, self, [], {self.idx}
        while True:
            var = block.vars.get(name)
            if var is not None:
                return var
            if block.forward_block_idx >= 0:
                forwards.append(block.forward_block_idx)
            parent = block.parent_idx
            if 0 <= parent < block.idx and parent not in seen:   # parents are earlier blocks
                block = blocks[parent]
                seen.add(parent)
                continue
            while forwards:                          # then the forward blocks' chains
                index = forwards.pop()
                if 0 <= index < len(blocks) and index not in seen:
                    block = blocks[index]
                    seen.add(index)
                    break
            else:
                return None

    def _var_recursive(self, name: str) -> Variable:
        var = self._find_var_recursive(name)
        if var is None:
            raise ValueError(f"Var {name} is not found recursively")
        return var

    def create_var(self, name: str | None = None, type: VarType = VarType.LOD_TENSOR,
                   shape=None, dtype=None, initializer=None, **kwargs) -> Variable:
        """Create a variable, or return the existing one of that name after checking that
        the new description agrees with it."""
        if name is None:
            name = self.program._generate_var_name()
        existing = self.vars.get(name)
        if existing is not None:
            _check_redefinition(existing, type, shape, dtype, kwargs)
            if existing._shape is None and shape is not None:
                existing._shape = Variable(self, name, shape=shape)._shape
            if existing._dtype is None and dtype is not None:
                existing._dtype = Variable(self, name, dtype=dtype)._dtype
            return existing
        var = Variable(self, name, type=type, shape=shape, dtype=dtype, **kwargs)
        self._add_var(var)
        if initializer is not None:
            initializer(var, self)
        return var

    def create_parameter(self, name: str, shape, dtype, initializer=None, **kwargs) -> Parameter:
        """Create a Parameter in the global block; ``initializer(var, block)`` appends its init op."""
        gblock = self.program.global_block()
        if name in gblock.vars and isinstance(gblock.vars[name], Parameter):
            return gblock.vars[name]
        param = Parameter(gblock, name, shape, dtype, **kwargs)
        gblock._add_var(param)
        if initializer is not None:
            writers = [op for op in gblock.ops if name in op.output_arg_names]
            if len(writers) > 1:
                raise RuntimeError(f"param {name} is inited by multiple init ops {writers}")
            if not writers:
                initializer(param, gblock)
        return param

    def _add_var(self, var: Variable) -> None:
        self.vars[var.name] = var
        self.program._bump()

    def _remove_var(self, name: str) -> None:
        self.vars.pop(name, None)
        self.program._bump()

    def _rename_var(self, old: str, new: str) -> Variable:
        var = self.var(old)
        var._name = new
        self.vars = {(new if k == old else k): v for k, v in self.vars.items()}
        for op in self.ops:
            op._rename_input(old, new)
            op._rename_output(old, new)
        self.program._bump()
        return var

    def all_parameters(self) -> list[Parameter]:
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def iter_parameters(self) -> Iterator[Parameter]:
        return iter(self.all_parameters())

    def _clone_variable(self, var: Variable, force_persistable: bool = True) -> Variable:
        return self.create_var(name=var.name, type=var.type, shape=var._shape, dtype=var._dtype,
                               lod_level=var._lod_level,
                               persistable=True if force_persistable else var.persistable)

    # -- operators --------------------------------------------------------------------------
    def append_op(self, type: str | None = None, inputs: dict | None = None,
                  outputs: dict | None = None, attrs: dict | None = None, **_ignored) -> Operator:
        if type is None:
            raise ValueError("`type` to initialized an Operator can not be None.")
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.append(op)
        self.program._bump()
        return op

    def _append_with_temporaries(self, type: str, inputs: dict, attrs: dict | None = None,
                                 name: str | None = None, outputs: dict | None = None,
                                 layer: str | None = None):
        """Append ``type`` whose output slots not given in ``outputs`` get new temporaries
        named ``<layer>_<n>.tmp_<k>`` (``layer``: Paddle's LayerHelper name, default the op
        type). Returns the created Variable (a tuple of them when there are several)."""
        outputs = dict(outputs or {})
        prefix, created = name, []
        for slot in get_op(type).outputs:
            if slot.name in outputs or slot.dispensable:
                continue
            # a layer name only when a temporary needs one (callers naming every output
            # took theirs: paddle.add is elementwise_add_0, _1, ...)
            prefix = prefix or unique_name.generate(layer or type)
            var = self.create_var(name=unique_name.generate_with_ignorable_key(prefix + ".tmp"))
            outputs[slot.name] = var
            created.append(var)
        self.append_op(type=type, inputs=inputs, outputs=outputs, attrs=attrs)
        return created[0] if len(created) == 1 else tuple(created)

    def _insert_op(self, index: int, type: str, inputs: dict | None = None,
                   outputs: dict | None = None, attrs: dict | None = None, **_ignored) -> Operator:
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _insert_empty_op(self, index: int) -> Operator:
        """An op without type, slots or attributes, to be filled in through ``op.desc``."""
        op = Operator(self, "", {}, {}, {})
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _prepend_op(self, type: str, inputs: dict | None = None, outputs: dict | None = None,
                    attrs: dict | None = None, **_ignored) -> Operator:
        return self._insert_op(0, type, inputs, outputs, attrs)

    def _remove_op(self, index: int, end: int | None = None) -> None:
        del self.ops[index:(index + 1 if end is None else end)]
        self.program._bump()

    def _make_op(self, type: str, inputs, outputs, attrs) -> Operator:
        opdef = get_op(type)
        in_slots = normalize_slots(opdef, inputs, outputs=False)
        out_slots = normalize_slots(opdef, outputs, outputs=True)
        full_attrs = normalize_attrs(opdef, attrs, self.program._current_role)
        if self.program._op_role_var and "op_role_var" not in (attrs or {}):
            full_attrs["op_role_var"] = list(self.program._op_role_var)
        op = Operator(self, type, in_slots, out_slots, full_attrs, site=user_site())
        in_vars = {slot: [self._input_var(op, slot, n) for n in names]
                   for slot, names in in_slots.items()}
        out_vars = {slot: [self._output_var(n) for n in names] for slot, names in out_slots.items()}
        if opdef.infer_shape is not None:
            _infer_shapes(op, opdef, in_vars, out_vars)
        if type not in _CONTROL_FLOW_OPS:
            inputs_stop = all(v.stop_gradient for vs in in_vars.values() for v in vs)
            for vs in out_vars.values():
                for v in vs:
                    if v is not None and inputs_stop and not isinstance(v, Parameter):
                        v.stop_gradient = True
        for vs in out_vars.values():
            for v in vs:
                if v is not None:
                    v.op = op
        return op

    def _infer_op_shapes(self, op: Operator) -> None:
        """Run ``op``'s shape rule again on the variables its slots name now (OpDesc's
        ``infer_shape``, after a desc was edited)."""
        opdef = op.opdef
        if opdef is None or opdef.infer_shape is None:
            return
        in_vars = {slot: [self._input_var(op, slot, n) for n in names]
                   for slot, names in op.inputs.items()}
        out_vars = {slot: [self._output_var(n) for n in names]
                    for slot, names in op.outputs.items()}
        _infer_shapes(op, opdef, in_vars, out_vars)

    def _input_var(self, op: Operator, slot: str, name: str) -> Variable:
        var = self._find_var_recursive(name)
        if var is None:
            raise ProgramError(f"op '{op.type}' input {slot}={name!r}: no variable named {name!r} "
                               f"exists in block {self.idx} or its parents (built at {op.site}). "
                               "Create it first (static.data, create_var, or an earlier op).")
        return var

    def _output_var(self, name: str) -> Variable | None:
        if name == "@EMPTY@":
            return None
        var = self._find_var_recursive(name)
        return var if var is not None else self.create_var(name=name)


def _infer_shapes(op: Operator, opdef, in_vars: dict, out_vars: dict) -> None:
    metas = []
    for slot in opdef.inputs:
        vars_ = in_vars.get(slot.name, [])
        if any(not v.has_tensor_desc for v in vars_):
            return  # an input of unknown type: nothing to infer from
        ms = [v.meta for v in vars_]
        metas.append(ms if slot.duplicable else (ms[0] if ms else None))
    attrs = {k: op.attrs[k] for k in opdef.attrs}
    try:
        result = opdef.infer_shape(*metas, **attrs)
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        shapes = ", ".join(f"{s}={[(v.name, list(v.shape), v.dtype.name_str) for v in vs]}"
                           for s, vs in in_vars.items())
        raise ShapeError(f"op '{op.type}' (built at {op.site}) cannot take inputs {shapes}: "
                         f"{exc}") from None
    results = (result,) if isinstance(result, Meta) or len(opdef.outputs) == 1 else result
    for slot, res in zip(opdef.outputs, results):
        vars_ = out_vars.get(slot.name, [])
        res_list = res if slot.duplicable and isinstance(res, list) else [res] * len(vars_)
        for var, m in zip(vars_, res_list):
            if var is not None and m is not None:
                var._set_meta(m)


def _check_redefinition(var: Variable, type, shape, dtype, kwargs: dict) -> None:
    def mismatch(what, old, new):
        raise ValueError(f"Variable '{var.name}' has been created before. The previous {what} is "
                         f"{old}, the new {what} is {new}. They are not matched")
    if type is not None and VarType(type) != var.type:
        mismatch("type", var.type, VarType(type))
    if shape is not None and var._shape is not None:
        new = tuple(-1 if d is None else int(d) for d in shape)
        if new != var._shape:
            mismatch("shape", var._shape, new)
    if dtype is not None and var._dtype is not None:
        from ..ops.types import convert_dtype
        if convert_dtype(dtype) != var._dtype:
            mismatch("dtype", var._dtype, convert_dtype(dtype))
    if kwargs.get("persistable") is not None and bool(kwargs["persistable"]) != var.persistable:
        mismatch("persistable", var.persistable, kwargs["persistable"])
