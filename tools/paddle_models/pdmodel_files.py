"""What the Paddle-side generators share: a seed per model name, and reading and cleaning the
.pdmodel files Paddle saved (through Paddle's own protobuf classes; run under Paddle)."""
import zlib


def seed_for(name):
    """A deterministic seed per model name (a CRC of it)."""
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def _read_desc(pdmodel_path):
    from paddle.base.proto import framework_pb2

    desc = framework_pb2.ProgramDesc()
    with open(pdmodel_path, "rb") as f:
        desc.ParseFromString(f.read())
    return desc


def strip_callstacks(pdmodel_path):
    """Remove the ``op_callstack`` attribute (Python tracebacks holding the paths of
    this machine) from every op of a saved ProgramDesc, in place.  Paddle treats it as
    an extra attribute: the program loads and runs the same without it, and the file
    becomes independent of where the generator ran."""
    desc = _read_desc(pdmodel_path)
    for block in desc.blocks:
        for op in block.ops:
            keep = [a for a in op.attrs if a.name != "op_callstack"]
            if len(keep) != len(op.attrs):
                del op.attrs[:]
                op.attrs.extend(keep)
    with open(pdmodel_path, "wb") as f:
        f.write(desc.SerializeToString())


def op_types_of(pdmodel_path):
    """The sorted op types over all blocks of a saved .pdmodel, and its number of blocks."""
    desc = _read_desc(pdmodel_path)
    return sorted({op.type for b in desc.blocks for op in b.ops}), len(desc.blocks)
