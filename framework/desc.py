"""Paddle's desc objects (``core.BlockDesc``, ``core.OpDesc``, ``core.VarDesc``) as a user sees
them: views over pyfluid's Block, Operator and Variable, which stay the source of truth. In
Paddle the descs are a C++ copy that the Python objects sync with; here every setter writes
the IR directly (and bumps the program's version), so ``_sync_with_cpp`` has nothing to do."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..ops.registry import get_op, has_op
from ..ops.types import AttrType, VarType, convert_dtype

if TYPE_CHECKING:
    from .block import Block
    from .operator import Operator
    from .variable import Variable


def _text(name: str | bytes) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)


class _View:
    """Equal (and hashed) by the IR object it shows, as Paddle compares desc handles."""

    _of: Any

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._of is self._of

    def __hash__(self) -> int:
        return id(self._of)


class VarDesc(_View):
    """A variable's desc: name, kind, shape, dtype, LoD level and flags (a READER also keeps
    one shape, dtype and LoD level per slot)."""

    VarType = VarType

    def __init__(self, var: "Variable"):
        self._of = var

    def name(self) -> str:
        return self._of.name

    def type(self) -> VarType:
        return self._of.type

    def set_type(self, kind: VarType) -> None:
        self._of.type = VarType(kind)
        self._bump()

    def shape(self) -> list:
        return list(self._of.shape)

    def set_shape(self, shape: Sequence[int]) -> None:
        self._of._shape = tuple(int(d) for d in shape)
        self._bump()

    def dtype(self) -> VarType:
        return self._of.dtype

    def set_dtype(self, dtype: Any) -> None:
        self._of._dtype = convert_dtype(dtype)
        self._bump()

    def lod_level(self) -> int:
        return self._of._lod_level or 0

    def set_lod_level(self, level: int) -> None:
        self._of.lod_level = int(level)
        self._bump()

    # a READER's per-slot metadata
    def shapes(self) -> list:
        return [list(s) for s in self._slots().get("shapes", [])]

    def set_shapes(self, shapes: Sequence[Sequence[int]]) -> None:
        self._set_slots("shapes", [[int(d) for d in s] for s in shapes])

    def dtypes(self) -> list:
        return list(self._slots().get("dtypes", []))

    def set_dtypes(self, dtypes: Sequence[Any]) -> None:
        self._set_slots("dtypes", [convert_dtype(d) for d in dtypes])

    def lod_levels(self) -> list:
        return list(self._slots().get("lod_levels", []))

    def set_lod_levels(self, levels: Sequence[int]) -> None:
        self._set_slots("lod_levels", [int(v) for v in levels])

    def _slots(self) -> dict:
        return getattr(self._of, "_reader_slots", {})

    def _set_slots(self, key: str, value: list) -> None:
        self._of._reader_slots = {**self._slots(), key: value}
        self._bump()

    # flags
    def persistable(self) -> bool:
        return self._of.persistable

    def set_persistable(self, value: bool) -> None:
        self._of.persistable = value

    def need_check_feed(self) -> bool:
        return self._of.need_check_feed

    def set_need_check_feed(self, value: bool) -> None:
        self._of.need_check_feed = bool(value)
        self._bump()

    def stop_gradient(self) -> bool:
        return self._of.stop_gradient

    def set_stop_gradient(self, value: bool) -> None:
        self._of.stop_gradient = value

    def has_stop_gradient(self) -> bool:
        return self._of.stop_gradient or self._of.has_stop_gradient

    def has_is_parameter(self) -> bool:
        return self._of.is_parameter or self._of.has_is_parameter

    def is_parameter(self) -> bool:
        return self._of.is_parameter

    def _set_attr(self, name: str, value: int | str | list) -> None:
        """A VarDesc.Attr (INT, STRING or INTS), serialized with the variable."""
        attr_type = (AttrType.STRING if isinstance(value, str) else
                     AttrType.INTS if isinstance(value, (list, tuple)) else AttrType.INT)
        value = [int(v) for v in value] if attr_type == AttrType.INTS else value
        attrs = [a for a in self._of.desc_attrs if a[0] != name]
        self._of.desc_attrs = attrs + [(name, attr_type, value)]
        self._bump()

    def attr(self, name: str):
        return next((v for n, _, v in self._of.desc_attrs if n == name), None)

    def _bump(self) -> None:
        self._of.block.program._bump()


class OpDesc(_View):
    """An operator's desc: type, slots and attributes, set without the append-time checks
    (as in Paddle, where a desc may be filled in step by step)."""

    def __init__(self, op: "Operator"):
        self._of = op

    def type(self) -> str:
        return self._of.type

    def set_type(self, op_type: str) -> None:
        self._of.type = op_type
        self._of.opdef = get_op(op_type) if has_op(op_type) else None
        self._bump()

    def input(self, slot: str) -> list[str]:
        return self._of.input(slot)

    def output(self, slot: str) -> list[str]:
        return self._of.output(slot)

    def input_names(self) -> list[str]:
        return self._of.input_names

    def output_names(self) -> list[str]:
        return self._of.output_names

    def input_arg_names(self) -> list[str]:
        return self._of.input_arg_names

    def output_arg_names(self) -> list[str]:
        return self._of.output_arg_names

    def set_input(self, slot: str, names: Sequence[str]) -> None:
        self._of.inputs[slot] = [_text(n) for n in names]
        self._bump()

    def set_output(self, slot: str, names: Sequence[str]) -> None:
        self._of.outputs[slot] = [_text(n) for n in names]
        self._bump()

    def remove_input(self, slot: str) -> None:
        self._of.inputs.pop(slot, None)
        self._bump()

    def remove_output(self, slot: str) -> None:
        self._of.outputs.pop(slot, None)
        self._bump()

    def _rename_input(self, old: str, new: str) -> None:
        self._of._rename_input(old, new)

    def _rename_output(self, old: str, new: str) -> None:
        self._of._rename_output(old, new)

    def attr(self, name: str) -> Any:
        return self._of.attr(name)

    def has_attr(self, name: str) -> bool:
        return self._of.has_attr(name)

    def attr_type(self, name: str) -> AttrType:
        return self._of.attr_type(name)

    def attr_names(self) -> list[str]:
        return self._of.attr_names

    def _set_attr(self, name: str, value: Any) -> None:
        self._of._set_attr(name, value)

    set_attr = _set_attr

    def remove_attr(self, name: str) -> None:
        self._of._remove_attr(name)

    def set_block_attr(self, name: str, block: "BlockDesc") -> None:
        self._of._set_attr(name, block.id, AttrType.BLOCK)

    def _block_attr_id(self, name: str) -> int:
        return int(self._of.attr(name))

    def infer_shape(self, block: "BlockDesc") -> None:
        """Set the output variables' shapes and dtypes from the op's shape rule."""
        block._of._infer_op_shapes(self._of)

    def check_attrs(self) -> None:
        """Fill the declared defaults of the op's attributes (Paddle's attribute checker)."""
        opdef = self._of.opdef
        for name, spec in (opdef.attrs.items() if opdef else ()):
            if not self._of.has_attr(name):
                self._of._set_attr(name, list(spec.default) if isinstance(spec.default, list)
                                   else spec.default)

    def _bump(self) -> None:
        self._of.block.program._bump()


class BlockDesc(_View):
    """A block's desc: its ops and variables by position and name."""

    def __init__(self, block: "Block"):
        self._of = block

    @property
    def id(self) -> int:
        return self._of.idx

    @property
    def parent(self) -> int:
        return self._of.parent_idx

    def get_forward_block_idx(self) -> int:
        return self._of.forward_block_idx

    def _set_forward_block_idx(self, idx: int) -> None:
        self._of.forward_block_idx = int(idx)

    def op_size(self) -> int:
        return len(self._of.ops)

    def op(self, index: int) -> OpDesc:
        return OpDesc(self._of.ops[index])

    def append_op(self) -> OpDesc:
        return self._insert_op(len(self._of.ops))

    def _prepend_op(self) -> OpDesc:
        return self._insert_op(0)

    def _insert_op(self, index: int) -> OpDesc:
        return OpDesc(self._of._insert_empty_op(index))

    def _remove_op(self, start: int, end: int) -> None:
        self._of._remove_op(start, end)

    def var(self, name: str | bytes) -> VarDesc:
        name = _text(name)
        var = self._of.vars.get(name)
        return VarDesc(var if var is not None else self._of.create_var(name=name))

    def has_var(self, name: str | bytes) -> bool:
        return _text(name) in self._of.vars

    def find_var(self, name: str | bytes) -> VarDesc | None:
        var = self._of.vars.get(_text(name))
        return None if var is None else VarDesc(var)

    def find_var_recursive(self, name: str | bytes) -> VarDesc | None:
        var = self._of._find_var_recursive(_text(name))
        return None if var is None else VarDesc(var)

    def _remove_var(self, name: str | bytes) -> None:
        self._of._remove_var(_text(name))

    def all_vars(self) -> list[VarDesc]:
        return [VarDesc(v) for v in self._of.vars.values()]
