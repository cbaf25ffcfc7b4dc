"""Program <-> ProgramDesc bytes (Paddle's wire format). The only module that imports the
generated protobuf code; everything else sees Programs, Blocks, Variables and Operators."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops.types import AttrType, VarType
from ..proto import framework_pb2 as pb
from .errors import ProgramError

if TYPE_CHECKING:
    from .program import Program

PADDLE_VERSION = 2006000      # the Paddle release whose files we write (2.6.0)

_SCALAR_FIELD = {
    AttrType.INT: "i", AttrType.FLOAT: "f", AttrType.STRING: "s", AttrType.BOOLEAN: "b",
    AttrType.BLOCK: "block_idx", AttrType.LONG: "l", AttrType.VAR: "var_name",
    AttrType.FLOAT64: "float64",
}
_LIST_FIELD = {
    AttrType.INTS: "ints", AttrType.FLOATS: "floats", AttrType.STRINGS: "strings",
    AttrType.BOOLEANS: "bools", AttrType.BLOCKS: "blocks_idx", AttrType.LONGS: "longs",
    AttrType.FLOAT64S: "float64s", AttrType.VARS: "vars_name",
}
_TENSOR_KINDS = {VarType.LOD_TENSOR: "lod_tensor", VarType.LOD_TENSOR_ARRAY: "tensor_array"}


class CorruptProgramError(ProgramError):
    """Bytes that are not a valid ProgramDesc."""


# -- writing -----------------------------------------------------------------------------------
def program_to_bytes(program: "Program") -> bytes:
    desc = pb.ProgramDesc()
    for block in program.blocks:
        bdesc = desc.blocks.add(idx=block.idx, parent_idx=block.parent_idx)
        if block.forward_block_idx != -1 or block._has_forward_idx:
            bdesc.forward_block_idx = block.forward_block_idx
        for var in block.vars.values():
            _write_var(bdesc.vars.add(), var)
        for op in block.ops:
            _write_op(bdesc.ops.add(), op)
    if program._version_field is not None:
        desc.version.version = program._version_field
    if program._op_versions is not None:
        desc.op_version_map.SetInParent()
        for name, version in program._op_versions:
            desc.op_version_map.pair.add(op_name=name).op_version.version = version
    return desc.SerializeToString()


def _write_var(vdesc, var) -> None:
    vdesc.name = var.name
    vdesc.type.type = int(var.type)
    if var.has_tensor_desc:
        field = _TENSOR_KINDS.get(var.type)
        if field is not None:
            holder = getattr(vdesc.type, field)
            tdesc = holder.tensor
            if var.lod_level is not None:
                holder.lod_level = var.lod_level
        elif var.type == VarType.SELECTED_ROWS:
            tdesc = vdesc.type.selected_rows
        else:
            tdesc = None
        if tdesc is not None:
            tdesc.data_type = int(var.dtype)
            tdesc.dims.extend(var.shape)
    vdesc.persistable = var.persistable
    if var.need_check_feed:
        vdesc.need_check_feed = True
    if var.is_parameter or var.has_is_parameter:
        vdesc.is_parameter = var.is_parameter
    if var.stop_gradient or var.has_stop_gradient:
        vdesc.stop_gradient = var.stop_gradient
    for name, attr_type, value in var.desc_attrs:
        a = vdesc.attrs.add(name=name, type=int(attr_type))
        if attr_type == AttrType.INT:
            a.i = value
        elif attr_type == AttrType.STRING:
            a.s = value
        else:
            a.ints.extend(value)


def _write_op(odesc, op) -> None:
    odesc.type = op.type
    for slot, names in op.inputs.items():
        odesc.inputs.add(parameter=slot, arguments=names)
    for slot, names in op.outputs.items():
        odesc.outputs.add(parameter=slot, arguments=names)
    for name, value in op.attrs.items():
        attr_type = op.attr_type(name)
        a = odesc.attrs.add(name=name, type=int(attr_type))
        if attr_type in _SCALAR_FIELD:
            setattr(a, _SCALAR_FIELD[attr_type], value)
        elif attr_type in _LIST_FIELD:
            getattr(a, _LIST_FIELD[attr_type]).extend(value)
        elif attr_type == AttrType.SCALAR:
            _write_scalar(a.scalar, value)
        else:
            for v in value:
                _write_scalar(a.scalars.add(), v)
    if op.is_target:
        odesc.is_target = True


def _write_scalar(s, value: Any) -> None:
    if isinstance(value, bool):
        s.type, s.b = pb.Scalar.BOOLEAN, value
    elif isinstance(value, int):
        s.type, s.i = pb.Scalar.LONG, value
    elif isinstance(value, complex):
        s.type = pb.Scalar.COMPLEX128
        s.c.r, s.c.i = value.real, value.imag
    else:
        s.type, s.r = pb.Scalar.FLOAT64, float(value)


# -- reading -----------------------------------------------------------------------------------
def program_from_bytes(data: bytes, source: str = "<bytes>") -> "Program":
    """Parse ProgramDesc bytes into a Program; corrupt input raises CorruptProgramError."""
    from .program import Program
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected bytes, got {type(data).__name__}")
    desc = pb.ProgramDesc()
    try:
        desc.ParseFromString(bytes(data))
    except Exception as exc:  # protobuf raises DecodeError or RuntimeError by backend
        raise CorruptProgramError(f"{source} is not a valid ProgramDesc (Paddle .pdmodel) file: "
                                  f"{exc}") from None
    if not desc.blocks:
        raise CorruptProgramError(f"{source} is not a valid ProgramDesc: it has no blocks")
    try:
        return _build_program(Program, desc)
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptProgramError(f"{source} holds an inconsistent ProgramDesc: {exc}") from None


def _build_program(program_cls, desc) -> "Program":
    program = program_cls(_empty=True)
    for i, bdesc in enumerate(desc.blocks):
        if bdesc.idx != i or not -1 <= bdesc.parent_idx < len(desc.blocks):
            raise ValueError(f"block {i} has idx {bdesc.idx} and parent {bdesc.parent_idx}")
        block = program._append_block(bdesc.idx, bdesc.parent_idx, bdesc.forward_block_idx)
        block._has_forward_idx = bdesc.HasField("forward_block_idx")
    for bdesc, block in zip(desc.blocks, program.blocks):
        for vdesc in bdesc.vars:
            block.vars[vdesc.name] = _read_var(block, vdesc)
        for odesc in bdesc.ops:
            block.ops.append(_read_op(block, odesc))
    program._version_field = desc.version.version if desc.HasField("version") else None
    program._op_versions = ([(p.op_name, p.op_version.version) for p in desc.op_version_map.pair]
                            if desc.HasField("op_version_map") else None)
    program._link_producers()
    return program


def _read_var(block, vdesc):
    from .variable import Parameter, Variable
    vtype = VarType(vdesc.type.type)
    shape = dtype = lod_level = None
    field = _TENSOR_KINDS.get(vtype)
    if field is not None and vdesc.type.HasField(field):
        holder = getattr(vdesc.type, field)
        shape, dtype = tuple(holder.tensor.dims), VarType(holder.tensor.data_type)
        lod_level = holder.lod_level if holder.HasField("lod_level") else None
    elif vtype == VarType.SELECTED_ROWS and vdesc.type.HasField("selected_rows"):
        shape = tuple(vdesc.type.selected_rows.dims)
        dtype = VarType(vdesc.type.selected_rows.data_type)
    kwargs = dict(shape=shape, dtype=dtype, lod_level=lod_level,
                  need_check_feed=vdesc.need_check_feed)
    if vdesc.is_parameter:
        var = Parameter(block, vdesc.name, trainable=not vdesc.stop_gradient, **kwargs)
    else:
        var = Variable(block, vdesc.name, type=vtype, persistable=vdesc.persistable,
                       stop_gradient=vdesc.stop_gradient, is_data=vdesc.need_check_feed, **kwargs)
    var._dtype = dtype                      # keep "unknown" as unknown
    var.has_stop_gradient = vdesc.HasField("stop_gradient")
    var.has_is_parameter = vdesc.HasField("is_parameter")
    var.desc_attrs = [(a.name, AttrType(a.type),
                       a.i if a.type == AttrType.INT else a.s if a.type == AttrType.STRING
                       else list(a.ints)) for a in vdesc.attrs]
    return var


def _read_op(block, odesc):
    from .operator import Operator
    inputs = {v.parameter: list(v.arguments) for v in odesc.inputs}
    outputs = {v.parameter: list(v.arguments) for v in odesc.outputs}
    attrs, attr_types = {}, {}
    for a in odesc.attrs:
        attr_type = AttrType(a.type)
        if attr_type in _SCALAR_FIELD:
            value = getattr(a, _SCALAR_FIELD[attr_type])
        elif attr_type in _LIST_FIELD:
            value = list(getattr(a, _LIST_FIELD[attr_type]))
        elif attr_type == AttrType.SCALAR:
            value = _read_scalar(a.scalar)
        else:
            value = [_read_scalar(s) for s in a.scalars]
        attrs[a.name] = value
        attr_types[a.name] = attr_type
    op = Operator(block, odesc.type, inputs, outputs, attrs, attr_types,
                  is_target=odesc.is_target, site="<loaded program>")
    return op


def _read_scalar(s) -> Any:
    if s.type == pb.Scalar.BOOLEAN:
        return s.b
    if s.type == pb.Scalar.LONG:
        return s.i
    if s.type == pb.Scalar.COMPLEX128:
        return complex(s.c.r, s.c.i)
    return s.r


def program_to_text_proto(program: "Program") -> str:
    """The protobuf text format of the program (Paddle's ``to_string``), for debugging."""
    desc = pb.ProgramDesc()
    desc.ParseFromString(program_to_bytes(program))
    return str(desc)


# -- tensor descriptors (used by the tensor stream format) --------------------------------------
def tensor_desc_to_bytes(dtype: VarType, dims) -> bytes:
    return pb.VarType.TensorDesc(data_type=int(dtype), dims=[int(d) for d in dims]).SerializeToString()


def tensor_desc_from_bytes(data: bytes) -> tuple[VarType, tuple]:
    desc = pb.VarType.TensorDesc()
    desc.ParseFromString(data)   # raises on malformed bytes or a missing data_type
    return VarType(desc.data_type), tuple(desc.dims)

