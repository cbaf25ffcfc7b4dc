"""ProgramDesc bytes: round trips, Paddle's field numbers (checked with a test-only raw wire
decoder written from spec §1), Paddle's own .pdmodel files, and corrupt input."""
import glob
import os
import struct

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework.printer import block_to_text
from pyfluid.framework.program import program_from_bytes
from pyfluid.framework.serialize import CorruptProgramError
from pyfluid.proto import framework_pb2
from shared_fixtures import PADDLE_FIXTURES, SKIP_REASON

FIXTURES = str(PADDLE_FIXTURES)
PDMODELS = sorted(glob.glob(os.path.join(FIXTURES, "*.pdmodel")))
needs_fixtures = pytest.mark.skipif(not PDMODELS, reason=SKIP_REASON)


# -- a raw protobuf wire decoder and Paddle's field table (spec §1), for tests only ------------
def _varint(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


TENSOR_DESC = {1: ("data_type", "int"), 2: ("dims", "int")}
LOD_TENSOR_DESC = {1: ("tensor", TENSOR_DESC), 2: ("lod_level", "int")}
VAR_TYPE = {1: ("type", "int"), 2: ("selected_rows", TENSOR_DESC),
            3: ("lod_tensor", LOD_TENSOR_DESC), 4: ("tensor_array", LOD_TENSOR_DESC)}
VAR_DESC = {1: ("name", "str"), 2: ("type", VAR_TYPE), 3: ("persistable", "int"),
            4: ("need_check_feed", "int"), 5: ("is_parameter", "int"),
            6: ("stop_gradient", "int"), 7: ("attrs", {1: ("name", "str"), 2: ("type", "int")})}
OP_VAR = {1: ("parameter", "str"), 2: ("arguments", "str")}
OP_ATTR = {1: ("name", "str"), 2: ("type", "int"), 3: ("i", "int"), 4: ("f", "f32"),
           5: ("s", "str"), 6: ("ints", "int"), 7: ("floats", "f32"), 8: ("strings", "str"),
           10: ("b", "int"), 11: ("bools", "int"), 12: ("block_idx", "int"), 13: ("l", "int"),
           14: ("blocks_idx", "int"), 15: ("longs", "int"), 16: ("float64s", "f64"),
           17: ("var_name", "str"), 18: ("vars_name", "str"), 19: ("float64", "f64")}
OP_DESC = {1: ("inputs", OP_VAR), 2: ("outputs", OP_VAR), 3: ("type", "str"),
           4: ("attrs", OP_ATTR), 5: ("is_target", "int")}
BLOCK_DESC = {1: ("idx", "int"), 2: ("parent_idx", "int"), 3: ("vars", VAR_DESC),
              4: ("ops", OP_DESC), 5: ("forward_block_idx", "int")}
OP_VERSION_MAP = {1: ("pair", {1: ("op_name", "str"), 2: ("op_version", {1: ("version", "int")})})}
PROGRAM_DESC = {1: ("blocks", BLOCK_DESC), 4: ("version", {1: ("version", "int")}),
                5: ("op_version_map", OP_VERSION_MAP)}


def wire_decode(buf: bytes, table: dict) -> dict:
    """Decode a message into {field name: [values]} using ``table``; unknown numbers fail."""
    out, pos = {}, 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire_type = key >> 3, key & 7
        name, kind = table[number]
        if wire_type == 0:
            value, pos = _varint(buf, pos)
            value = _signed(value)
        elif wire_type == 5:
            value, pos = struct.unpack("<f", buf[pos:pos + 4])[0], pos + 4
        elif wire_type == 1:
            value, pos = struct.unpack("<d", buf[pos:pos + 8])[0], pos + 8
        else:
            assert wire_type == 2, f"unexpected wire type {wire_type} for {name}"
            n, pos = _varint(buf, pos)
            raw, pos = buf[pos:pos + n], pos + n
            value = raw.decode() if kind == "str" else wire_decode(raw, kind)
        out.setdefault(name, []).append(value)
    return out


def _one(msg, name, default=None):
    return msg.get(name, [default])[-1]


# -- programs used below -----------------------------------------------------------------------
def build_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        block = main.global_block()
        w = block.create_parameter("w", [3, 4], "float32")
        startup.global_block().create_parameter("w", [3, 4], "float32")
        startup.global_block().append_op(type="uniform_random", outputs={"Out": "w"},
                                         attrs={"shape": [3, 4], "min": -0.5, "max": 0.5,
                                                "seed": 7})
        h = paddle.matmul(x, w)
        h = paddle.nn.functional.softmax(paddle.tanh(h) * 2.0 - 0.5, axis=-1)
        b = paddle.concat([h, h], axis=1)
        t = paddle.transpose(b, [1, 0])
        loss = paddle.mean(t)
    return main, startup, loss


def test_round_trip_gives_identical_bytes_text_and_results():
    main, startup, loss = build_program()
    data = main.desc.serialize_to_string()
    loaded = static.Program.parse_from_string(data)
    assert loaded.desc.serialize_to_string() == data
    assert str(loaded) == str(main)
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    feed = {"x": np.random.default_rng(1).standard_normal((5, 3)).astype("float32")}
    expected = exe.run(main, feed=feed, fetch_list=[loss.name])
    got = exe.run(loaded, feed=feed, fetch_list=[loss.name])
    np.testing.assert_array_equal(got[0], expected[0])
    assert loaded.global_block().var("w").is_parameter


def test_bytes_match_the_generated_protobuf_module():
    main, startup, _ = build_program()
    for program in (main, startup):
        data = program.desc.serialize_to_string()
        assert framework_pb2.ProgramDesc.FromString(data).SerializeToString() == data


def test_our_bytes_decode_under_paddle_field_numbers():
    main, _, _ = build_program()
    main.global_block().append_op(
        type="fill_constant", outputs={"Out": main.global_block().create_var(name="big")},
        attrs={"shape": [2, 2**33], "value": 0.1, "dtype": 3, "str_value": "0.1"})
    desc = wire_decode(main.desc.serialize_to_string(), PROGRAM_DESC)
    (block,) = desc["blocks"]
    assert (_one(block, "idx"), _one(block, "parent_idx")) == (0, -1)
    assert [_one(v, "name") for v in block["vars"]] == list(main.global_block().vars)
    x = block["vars"][0]
    assert _one(x, "need_check_feed") == 1 and _one(x, "persistable") == 0
    tensor = _one(_one(_one(x, "type"), "lod_tensor"), "tensor")
    assert _one(tensor, "data_type") == 5 and tensor["dims"] == [-1, 3]          # FP32
    w = block["vars"][1]
    assert _one(w, "name") == "w" and _one(w, "persistable") == 1 and _one(w, "is_parameter") == 1
    assert [_one(op, "type") for op in block["ops"]] == [op.type for op in main.global_block().ops]
    matmul = block["ops"][0]
    assert {_one(s, "parameter"): s["arguments"] for s in matmul["inputs"]} == {"X": ["x"],
                                                                                 "Y": ["w"]}
    attrs = {_one(a, "name"): a for a in matmul["attrs"]}
    assert _one(attrs["trans_x"], "type") == 6 and _one(attrs["trans_x"], "b") == 0   # BOOLEAN
    assert _one(attrs["op_role"], "type") == 0 and _one(attrs["op_role"], "i") == 0     # INT
    assert _one(attrs["op_namescope"], "type") == 2                                      # STRING
    assert _one(attrs["op_role_var"], "type") == 5                                       # STRINGS
    ops = {_one(op, "type"): op for op in block["ops"]}
    concat_x = next(s for s in ops["concat"]["inputs"] if _one(s, "parameter") == "X")
    assert len(concat_x["arguments"]) == 2
    perm = {_one(a, "name"): a for a in ops["transpose2"]["attrs"]}["axis"]
    assert _one(perm, "type") == 3 and perm["ints"] == [1, 0]                            # INTS
    fill = {_one(a, "name"): a for a in ops["fill_constant"]["attrs"]}
    assert _one(fill["shape"], "type") == 11 and fill["shape"]["longs"] == [2, 2**33]   # LONGS
    assert _one(fill["value"], "type") == 1 and _one(fill["value"], "f") == np.float32(0.1)
    assert _one(fill["dtype"], "i") == 3 and _one(fill["str_value"], "s") == "0.1"
    times_two, minus_half = [{_one(a, "name"): a for a in op["attrs"]}
                             for op in block["ops"] if _one(op, "type") == "scale"]
    assert _one(times_two["scale"], "f") == 2.0 and _one(minus_half["bias"], "f") == -0.5


@needs_fixtures
@pytest.mark.parametrize("path", PDMODELS, ids=os.path.basename)
def test_paddle_pdmodel_parses_prints_and_reserializes_identically(path):
    data = open(path, "rb").read()
    program = program_from_bytes(data, path)
    assert program.desc.serialize_to_string() == data
    raw = wire_decode(data, PROGRAM_DESC)
    for block_raw, block in zip(raw["blocks"], program.blocks):
        var_text, op_text = block_to_text(block, full=True).split("\n\n")
        assert [_one(v, "name") for v in block_raw["vars"]] == list(block.vars)
        for v in block_raw["vars"]:
            assert f"  var {_one(v, 'name')} : " in var_text
        op_lines = op_text.splitlines()
        assert [_one(op, "type") for op in block_raw["ops"]] == [op.type for op in block.ops]
        assert len(op_lines) == len(block_raw["ops"])
        for op_raw, line in zip(block_raw["ops"], op_lines):
            assert f" {_one(op_raw, 'type')}(" in line
            for slot in op_raw.get("inputs", []) + op_raw.get("outputs", []):
                assert f"{_one(slot, 'parameter')}=" in line, line
                for arg in slot.get("arguments", []):
                    assert arg in line, (arg, line)
            for attr in op_raw["attrs"]:
                name = _one(attr, "name")
                assert name == "op_callstack" or f"{name}=" in line, (name, line)


@needs_fixtures
def test_paddle_mlp_fixture_has_expected_structure():
    program = program_from_bytes(open(os.path.join(FIXTURES, "mlp_small.pdmodel"), "rb").read())
    block = program.global_block()
    assert [op.type for op in block.ops] == ["feed", "mul", "elementwise_add", "relu", "mul",
                                             "elementwise_add", "softmax", "scale", "fetch"]
    assert block.var("x").shape == (-1, 784) and block.var("x").need_check_feed
    assert block.var("fc_0.w_0").persistable and block.var("fc_0.w_0").shape == (784, 64)
    assert block.ops[2].attr("axis") == 1
    program.verify()


def test_corrupt_and_truncated_bytes_name_the_source():
    main, _, _ = build_program()
    data = main.desc.serialize_to_string()
    for cut in (1, 2, len(data) // 3, len(data) // 2, len(data) - 1):
        with pytest.raises(CorruptProgramError, match="model.pdmodel"):
            program_from_bytes(data[:cut], "model.pdmodel")
    with pytest.raises(CorruptProgramError, match="<bytes>"):
        static.Program.parse_from_string(data[:len(data) // 2])
    with pytest.raises(CorruptProgramError, match="not a valid Paddle ProgramDesc"):
        program_from_bytes(b"\xff" * 16, "junk.bin")
    with pytest.raises(CorruptProgramError, match="no blocks"):
        program_from_bytes(b"", "empty.pdmodel")
    with pytest.raises(TypeError):
        program_from_bytes("not bytes")


def test_missing_required_fields_are_reported():
    desc = framework_pb2.ProgramDesc()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    block.ops.add().inputs.add(parameter="X", arguments=["x"])
    with pytest.raises(CorruptProgramError, match="lacks its required type"):
        program_from_bytes(desc.SerializePartialToString(), "m.pdmodel")
    desc = framework_pb2.ProgramDesc()
    desc.blocks.add(idx=0, parent_idx=-1).vars.add(name="v")
    with pytest.raises(CorruptProgramError, match="lacks its name or type"):
        program_from_bytes(desc.SerializePartialToString(), "m.pdmodel")
    desc = framework_pb2.ProgramDesc()
    desc.blocks.add(idx=3, parent_idx=-1)
    with pytest.raises(CorruptProgramError, match="idx 3"):
        program_from_bytes(desc.SerializeToString(), "m.pdmodel")


def test_packed_repeated_fields_and_unknown_attr_types_are_read():
    desc = framework_pb2.ProgramDesc()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    op = block.ops.add(type="transpose2")
    op.inputs.add(parameter="X", arguments=["x"])
    op.outputs.add(parameter="Out", arguments=["y"])
    attr = op.attrs.add(name="axis", type=framework_pb2.INTS)
    attr.ints.extend([1, 0])
    data = desc.SerializeToString()
    # re-encode field 6 (ints) packed: tag 0x32, length 2, values 1 0
    packed = data.replace(b"\x30\x01\x30\x00", b"\x32\x02\x01\x00")
    assert packed != data
    program = program_from_bytes(packed)
    assert program.global_block().ops[0].attr("axis") == [1, 0]


def test_version_and_op_version_map_survive():
    main, _, _ = build_program()
    main.desc._set_version()
    main._op_versions = [("matmul_v2", 1)]
    data = main.desc.serialize_to_string()
    raw = wire_decode(data, PROGRAM_DESC)
    assert _one(_one(raw, "version"), "version") == 2006002
    assert _one(_one(_one(raw, "op_version_map"), "pair"), "op_name") == "matmul_v2"
    loaded = static.Program.parse_from_string(data)
    assert loaded._version_field == 2006002 and loaded._op_versions == [("matmul_v2", 1)]
    assert loaded.desc.serialize_to_string() == data


def test_mutated_bytes_parse_or_raise_corrupt_program_error():
    main, _, _ = build_program()
    data = bytearray(main.desc.serialize_to_string())
    rng = np.random.default_rng(7)
    for _ in range(300):
        mutated = bytearray(data)
        for pos in rng.integers(0, len(data), size=rng.integers(1, 4)):
            mutated[pos] = rng.integers(0, 256)
        cut = len(mutated) if rng.random() < 0.5 else int(rng.integers(1, len(mutated)))
        try:
            program_from_bytes(bytes(mutated[:cut]), "fuzz.pdmodel")
        except CorruptProgramError as exc:
            assert "fuzz.pdmodel" in str(exc)
