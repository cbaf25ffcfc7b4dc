"""Decoding ProgramDesc bytes into a Program: the reading half of :mod:`.serialize`.

Hot paths (op slots and types, var names) are scanned inline; attributes, var types and the
attribute tail of ops are decoded once per distinct byte string (they repeat across ops), in
caches that belong to one load: bounded in entries and key size, released with the decoder.
Names are shared between a variable and the ops using it. The bytes may be hostile, so each
load has a memory budget proportional to the file size: a file that describes more objects
than that (millions of five-byte ops) is refused before it exhausts memory.
Malformed input raises ValueError / WireError, which :func:`.serialize.program_from_bytes`
turns into a CorruptProgramError naming the source.
"""
from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, Callable

from . import wire
from .desc_fields import expect, read_attr, read_op_versions, read_var_fields, text
from .operator import Operator
from .variable import Parameter, Variable
from .wire import LENGTH, VARINT, WireError

if TYPE_CHECKING:
    from .program import Program

CACHE_ENTRIES = 4096            # per cache and load
CACHE_KEY_BYTES = 1024          # longer byte strings are decoded each time, never kept
MEMORY_FACTOR = 16              # a load may build about this many bytes per byte of file ...
MEMORY_SLACK = 32 << 20         # ... plus this many
# estimated bytes of what one var / op / slot / argument / attribute / list item builds
VAR_COST, OP_COST, SLOT_COST, ARG_COST, ATTR_COST, ITEM_COST = 360, 480, 240, 16, 120, 40


def read_program(data: bytes, program_class: type) -> "Program":
    """ProgramDesc bytes -> a ``program_class`` (blocks, vars, ops, version, op-version map).
    The class is passed in so that this module sits below the Program it builds."""
    return _Decoder(data).program(program_class)


class _Decoder:
    """One load: the bytes, its caches and its memory budget."""

    def __init__(self, data: bytes):
        self.data = data
        self.budget = MEMORY_FACTOR * len(data) + MEMORY_SLACK
        self.names: dict[str, str] = {}
        self.var_fields: dict[bytes, tuple] = {}
        self.op_tails: dict[bytes, tuple] = {}
        self.attr_values: dict[bytes, tuple] = {}
        self.type_maps: dict[tuple, Any] = {}

    def charge(self, nbytes: int) -> None:
        self.budget -= nbytes
        if self.budget < 0:
            raise ValueError(f"it describes too many objects for its {len(self.data)} bytes "
                             f"(more than {MEMORY_FACTOR} bytes of memory per byte of file); "
                             "refusing it before it exhausts memory")

    def cached(self, cache: dict, key: bytes, decode: Callable[[bytes], Any]) -> Any:
        value = cache.get(key)
        if value is None:
            value = decode(key)
            if len(key) <= CACHE_KEY_BYTES and len(cache) < CACHE_ENTRIES:
                cache[key] = value
        return value

    def name(self, raw) -> str:
        text = raw.decode() if type(raw) is bytes else text(raw)
        return self.names.setdefault(text, text)

    def program(self, program_class: type) -> "Program":
        data = self.data
        program = program_class(_empty=True)
        spans = []
        for number, wire_type, value in wire.field_slices(data, 0, len(data)):
            expect(wire_type, LENGTH, number, "ProgramDesc")
            if number == 1:
                spans.append(value)
            elif number == 4:
                program._version_field = 0
                for n, w, v in wire.fields(data[value], 0, value.stop - value.start):
                    if n == 1:
                        program._version_field = wire.signed(v)
            elif number == 5:
                program._op_versions = read_op_versions(data[value])
        if not spans:
            raise ValueError("it has no blocks")
        for i, span in enumerate(spans):
            idx, parent, forward = self.block_header(i, span)
            if idx != i or not (parent == -1 if i == 0 else 0 <= parent < i):
                raise ValueError(f"block #{i} has idx {idx} and parent_idx {parent} (a block's "
                                 "parent must be an earlier block; block 0 has parent -1)")
            block = program._append_block(idx, parent, -1 if forward is None else forward)
            block._has_forward_idx = forward is not None
        for block, span in zip(program.blocks, spans):
            ops = 0
            for number, _, value in wire.field_slices(data, span.start, span.stop):
                if number == 3:
                    self.charge(VAR_COST)
                    var = self.var(block, data[value])
                    block.vars[var.name] = var
                elif number == 4:
                    block.ops.append(self.op(block, data[value], ops))
                    ops += 1
        program._link_producers()
        return program

    def block_header(self, i: int, span: slice) -> tuple:
        idx = parent = forward = None
        for number, wire_type, value in wire.field_slices(self.data, span.start, span.stop):
            if number in (1, 2, 5):
                expect(wire_type, VARINT, number, f"BlockDesc #{i}")
                value = wire.signed(value)
                if number == 1:
                    idx = value
                elif number == 2:
                    parent = value
                else:
                    forward = value
        if idx is None or parent is None:
            raise ValueError(f"block #{i} lacks its required idx/parent_idx")
        return idx, parent, forward

    def var(self, block, data: bytes):
        """VarDesc bytes -> Variable (or Parameter). The name leads the message; the rest is
        decoded once per distinct byte string."""
        name, rest = None, data
        if len(data) > 2 and data[0] == 0x0a and data[1] < 0x80 and 2 + data[1] <= len(data):
            name, rest = self.name(data[2:2 + data[1]]), data[2 + data[1]:]
        stray_name, vtype, flags, attrs = self.cached(self.var_fields, rest, read_var_fields)
        if stray_name is not None:
            name = self.names.setdefault(stray_name, stray_name)
        if name is None or vtype is None:
            raise ValueError(f"a VarDesc of block {block.idx} lacks its name or type")
        kind, shape, dtype, lod_level = vtype
        persistable, need_check_feed = flags.get(3, False), flags.get(4, False)
        if flags.get(5):
            var = Parameter(block, name, shape, dtype, trainable=not flags.get(6, False),
                            lod_level=lod_level)
        else:
            var = Variable(block, name, type=kind, persistable=persistable,
                           stop_gradient=flags.get(6, False), is_data=need_check_feed,
                           need_check_feed=need_check_feed, lod_level=lod_level)
            var._shape, var._dtype = shape, dtype
        var.has_is_parameter, var.has_stop_gradient = 5 in flags, 6 in flags
        var.has_persistable = 3 in flags
        if attrs:
            var.desc_attrs = [(n, t, list(v) if type(v) is tuple else v) for n, t, v in attrs]
        return var

    def op(self, block, data: bytes, index: int):
        """OpDesc bytes -> Operator. Slots and type (which lead the message in Paddle's layout)
        are scanned inline; the rest, mostly attributes repeated across ops, is decoded once
        per distinct byte string."""
        op_type, inputs, outputs, pos, end = None, {}, {}, 0, len(data)
        cost = OP_COST
        while pos < end and data[pos] in (0x0a, 0x12, 0x1a):
            k, n = data[pos], data[pos + 1]
            pos += 2
            if n >= 0x80:
                n, pos = wire.read_varint(data, pos - 1)
            stop = pos + n
            if stop > end:
                raise WireError(f"op #{index} of block {block.idx} runs past its end", pos)
            if k == 0x1a:
                op_type = self.name(data[pos:stop])
            else:
                slot, args = self.slot(data[pos:stop])
                (inputs if k == 0x0a else outputs)[slot] = args
                cost += SLOT_COST + ARG_COST * len(args)
            pos = stop
        attrs, attr_types, is_target = {}, None, False
        if pos < end:
            base, list_names, types_map, is_target, stray = self.cached(
                self.op_tails, data[pos:], self.read_op_tail)
            attrs, attr_types = base.copy(), types_map
            cost += ATTR_COST * len(attrs)
            for name in list_names:
                attrs[name] = list(attrs[name])
                cost += ITEM_COST * len(attrs[name])
            for number, value in stray:
                if number == 3:
                    op_type = self.name(value)
                else:
                    slot, args = self.slot(value)
                    (inputs if number == 1 else outputs)[slot] = args
                    cost += SLOT_COST + ARG_COST * len(args)
        self.charge(cost)
        if op_type is None:
            raise ValueError(f"op #{index} of block {block.idx} lacks its required type")
        return Operator(block, op_type, inputs, outputs, attrs, attr_types, is_target=is_target,
                        site="<loaded program>")

    def read_op_tail(self, data: bytes) -> tuple:
        """The OpDesc fields after the leading slots and type: (attrs with lists as tuples,
        names of list attrs, a read-only map of attr types shared by ops that have the same
        ones, is_target, stray slot/type fields as (number, bytes))."""
        attrs, list_names, attr_types, is_target, stray = {}, [], {}, False, []
        for number, wire_type, value in wire.fields(data, 0, len(data)):
            if number == 4:
                name, attr_type, attr_value = self.cached(self.attr_values, value, read_attr)
                attrs[name], attr_types[name] = attr_value, attr_type
                if type(attr_value) is tuple:
                    list_names.append(name)
            elif number in (1, 2, 3):
                stray.append((number, value))
            elif number == 5:
                is_target = bool(value)
        key = tuple(attr_types.items())
        shared = self.type_maps.get(key)
        if shared is None:
            shared = types.MappingProxyType(attr_types)
            if len(self.type_maps) < CACHE_ENTRIES:
                self.type_maps[key] = shared
        return attrs, tuple(list_names), shared, is_target, tuple(stray)

    def slot(self, data: bytes) -> tuple[str, list[str]]:
        """OpDesc.Var bytes -> (slot, argument names). Scans the usual layout (one-byte keys
        0x0a and 0x12) inline; anything else goes through the generic field reader."""
        slot, args, pos, end = None, [], 0, len(data)
        while pos < end:
            k, n = data[pos], data[pos + 1]
            pos += 2
            if n >= 0x80 or k not in (0x0a, 0x12):
                return self.slot_generic(data)
            stop = pos + n
            if stop > end:
                raise WireError("an OpDesc.Var runs past its end", pos)
            if k == 0x0a:
                slot = self.name(data[pos:stop])
            else:
                args.append(self.name(data[pos:stop]))
            pos = stop
        if slot is None:
            raise ValueError("an OpDesc.Var lacks its required parameter (slot name)")
        return slot, args

    def slot_generic(self, data: bytes) -> tuple[str, list[str]]:
        slot, args = None, []
        for number, _, value in wire.fields(data, 0, len(data)):
            if number == 1:
                slot = self.name(value)
            elif number == 2:
                args.append(self.name(value))
        if slot is None:
            raise ValueError("an OpDesc.Var lacks its required parameter (slot name)")
        return slot, args

