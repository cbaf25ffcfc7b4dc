"""Operators of a static program, validated against their op declaration when built."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops.registry import COMMON_ATTRS, ROLE_BACKWARD, ROLE_OPTIMIZE, OpDef, get_op, has_op
from ..ops.types import AttrType, attr_type_of, coerce_attr
from .errors import ProgramError

if TYPE_CHECKING:
    from .block import Block
    from .desc import OpDesc


class OpAttrs(dict):
    """An op's attributes, read-only: ``op.attrs[name]`` reads, ``op._set_attr(name, value)``
    writes (it checks the type against the op's declaration and invalidates the Executor's
    cached plans). A dict subclass, so reading costs what a dict read costs."""

    __slots__ = ()

    def _read_only(self, *args, **kwargs):
        raise TypeError("op.attrs is read-only: use op._set_attr(name, value) to change an "
                        "attribute (it checks the type and invalidates cached plans) or "
                        "op._remove_attr(name) to drop one")

    __setitem__ = __delitem__ = __ior__ = _read_only
    update = setdefault = pop = popitem = clear = _read_only

    def __reduce__(self):
        return OpAttrs, (dict(self),)

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo) -> dict:
        import copy
        return copy.deepcopy(dict(self), memo)


_put = dict.__setitem__
_drop = dict.__delitem__


class Operator:
    """One op of a Block: its type, slot -> variable names, and attributes.

    ``op.attrs`` is a read-only mapping; change attributes with ``op._set_attr``."""

    def __init__(self, block: "Block", type: str, inputs: dict[str, list[str]],
                 outputs: dict[str, list[str]], attrs: dict[str, Any],
                 attr_types: dict[str, AttrType] | None = None, is_target: bool = False,
                 site: str | None = None):
        self.block = block
        self.type = type
        self.inputs = inputs
        self.outputs = outputs
        self._attrs = OpAttrs(attrs)
        self.attr_types = attr_types or {}   # only where the declaration does not say
        self.is_target = is_target
        self.site = site                     # file:line where the user built it (not serialized)
        self.opdef: OpDef | None = get_op(type) if has_op(type) else None

    @property
    def attrs(self) -> OpAttrs:
        """The attributes by name (read-only; see ``_set_attr``)."""
        return self._attrs

    @attrs.setter
    def attrs(self, value) -> None:
        raise TypeError("op.attrs cannot be replaced: use op._set_attr(name, value) and "
                        "op._remove_attr(name)")

    # -- Paddle's Operator API --------------------------------------------------------------
    def input(self, slot: str) -> list[str]:
        return self.inputs.get(slot, [])

    def output(self, slot: str) -> list[str]:
        return self.outputs.get(slot, [])

    @property
    def input_names(self) -> list[str]:
        return list(self.inputs)

    @property
    def output_names(self) -> list[str]:
        return list(self.outputs)

    @property
    def input_arg_names(self) -> list[str]:
        return [n for names in self.inputs.values() for n in names]

    @property
    def read_arg_names(self) -> list[str]:
        """Every name the op reads: its inputs, and the outputs whose current value it updates
        (``OpDef.reads_outputs``: an array written by ``write_to_array``)."""
        names = self.input_arg_names
        if self.opdef is not None and self.opdef.reads_outputs:
            names += [n for s in self.opdef.reads_outputs for n in self.outputs.get(s, [])]
        return names

    @property
    def output_arg_names(self) -> list[str]:
        return [n for names in self.outputs.values() for n in names]

    def attr(self, name: str) -> Any:
        return self.attrs.get(name)

    def _block_attr_id(self, name: str) -> int:
        """The index of the block a BLOCK attribute (``sub_block``) names."""
        return self.attrs[name]

    def _block_attr(self, name: str) -> "Block":
        return self.block.program.blocks[self.attrs[name]]

    def _blocks_attr_ids(self, name: str) -> list[int]:
        return list(self.attrs[name])

    def _blocks_attr(self, name: str) -> list["Block"]:
        return [self.block.program.blocks[i] for i in self.attrs[name]]

    def has_attr(self, name: str) -> bool:
        return name in self.attrs

    @property
    def attr_names(self) -> list[str]:
        return sorted(self.attrs)

    def all_attrs(self) -> dict[str, Any]:
        return dict(self.attrs)

    def attr_type(self, name: str) -> AttrType:
        if name in self.attr_types:
            return self.attr_types[name]
        spec = self.opdef.attr_spec(name) if self.opdef else COMMON_ATTRS.get(name)
        return spec.type if spec else attr_type_of(self.attrs[name])

    @property
    def desc(self) -> "OpDesc":
        """Paddle's ``op.desc`` (a view; the Operator is the source of truth)."""
        from .desc import OpDesc
        return OpDesc(self)

    def _set_attr(self, name: str, value: Any, attr_type: AttrType | None = None) -> None:
        """Set attribute ``name`` (Paddle's ``Operator._set_attr``): the value is converted to
        the attribute's type (declared by the op, recorded for this op, or ``attr_type``, which
        is then recorded) and every cached plan of the program is invalidated. An attribute
        the op does not declare, set without ``attr_type``, is stored as given."""
        if attr_type is not None:
            self.attr_types[name] = AttrType(attr_type)
        known = (attr_type is not None or name in self._attrs or name in self.attr_types
                 or (self.opdef is not None and self.opdef.attr_spec(name) is not None))
        if known:
            try:
                value = coerce_attr(value, self.attr_type(name))
            except TypeError as exc:
                raise TypeError(f"op '{self.type}' attribute '{name}': {exc}") from None
        _put(self._attrs, name, value)
        self.block.program._bump()

    def _remove_attr(self, name: str) -> None:
        """Drop attribute ``name`` (if present); invalidates cached plans."""
        if name in self._attrs:
            _drop(self._attrs, name)
            self.block.program._bump()

    _update_desc_attr = _set_attr

    def _rename_input(self, old: str, new: str) -> None:
        _rename_in(self.inputs, old, new)
        self.block.program._bump()

    def _rename_output(self, old: str, new: str) -> None:
        _rename_in(self.outputs, old, new)
        self.block.program._bump()

    @property
    def idx(self) -> int:
        for i, op in enumerate(self.block.ops):
            if op is self:
                return i
        raise ValueError("Can't find op itself in it's block. It could be a bug of Paddle.")

    @property
    def role(self) -> int:
        return int(self.attrs.get("op_role", 0))

    def _is_backward_op(self) -> bool:
        return bool(self.role & ROLE_BACKWARD)

    def _is_optimize_op(self) -> bool:
        return bool(self.role & ROLE_OPTIMIZE)

    def to_string(self, throw_on_error: bool = False) -> str:
        return str(self)

    def __str__(self) -> str:
        from .printer import op_to_text
        return op_to_text(self)

    __repr__ = __str__


def _rename_in(slots: dict[str, list[str]], old: str, new: str) -> None:
    for names in slots.values():
        for i, n in enumerate(names):
            if n == old:
                names[i] = new


# -- validation at append time ------------------------------------------------------------
def _arg_name(value: Any, op_type: str, slot: str) -> str:
    from .variable import Variable
    if isinstance(value, Variable):
        return value.name
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode()
    raise TypeError(f"op '{op_type}' slot '{slot}': expected a Variable or a variable name, "
                    f"got {type(value).__name__}")


def normalize_slots(opdef: OpDef, given: dict | None, outputs: bool) -> dict[str, list[str]]:
    """Check slot names and arities against the declaration; return slot -> [names]."""
    kind = "output" if outputs else "input"
    declared = opdef.outputs if outputs else opdef.inputs
    given = dict(given or {})
    result = {}
    for slot in declared:
        value = given.pop(slot.name, None)
        if value is None or (isinstance(value, (list, tuple)) and not value):
            if not slot.dispensable and not (slot.duplicable and value is not None):
                needed = ", ".join(s.name for s in declared if not s.dispensable)
                if outputs:
                    raise ProgramError(f'Incorrect setting for output(s) of operator "{opdef.type}", '
                                       f"should set: [{needed}].")
                raise ProgramError(f"Input {slot.name} not found: op '{opdef.type}' needs input "
                                   f"slot(s) [{needed}]")
            if value is not None:
                result[slot.name] = []
            continue
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(values) > 1 and not slot.duplicable:
            raise ProgramError(f"{kind.capitalize()} {slot.name} expects only one {kind}, but "
                               f"{len(values)} are given. (op '{opdef.type}')")
        result[slot.name] = [_arg_name(v, opdef.type, slot.name) for v in values]
    if given:
        valid = ", ".join(s.name for s in declared) or "(none)"
        raise ProgramError(f"op '{opdef.type}' has no {kind} slot "
                           f"{', '.join(repr(k) for k in given)}; its {kind} slots are: {valid}")
    return dict(sorted(result.items()))   # Paddle writes slots sorted by name


def normalize_attrs(opdef: OpDef, attrs: dict | None, role: int) -> dict[str, Any]:
    """Check names and types of attrs, fill declared defaults and the common attrs."""
    if attrs is not None and not isinstance(attrs, dict):
        raise TypeError("'attrs' should be a dict.")
    result: dict[str, Any] = {}
    for name, value in (attrs or {}).items():
        spec = opdef.attr_spec(name)
        if spec is None:
            valid = ", ".join(sorted([*opdef.attrs, *opdef.extra_attrs])) or "(none)"
            raise ProgramError(f"op '{opdef.type}' has no attribute '{name}'; valid attributes: "
                               f"{valid} (and the common {', '.join(COMMON_ATTRS)})")
        if value is None:
            continue
        if spec.type == AttrType.BLOCK and hasattr(value, "idx"):
            value = value.idx                  # a Block: stored as its index, as Paddle does
        elif spec.type == AttrType.BLOCKS:
            value = [getattr(v, "idx", v) for v in value]
        try:
            result[name] = coerce_attr(value, spec.type)
        except TypeError as exc:
            raise ProgramError(f"op '{opdef.type}' attribute '{name}' has the wrong type: {exc}. "
                               f"Pass a value of type {spec.type.name} (default {spec.default!r})") from None
    for name, spec in opdef.attrs.items():
        result.setdefault(name, _copy(spec.default))
    result.setdefault("op_role", role)
    for name in ("op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"):
        result.setdefault(name, _copy(COMMON_ATTRS[name].default))
    return dict(sorted(result.items()))


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value
