"""Paddle's tensor record and pickle formats, atomic writes, inference pruning and
Program.state_dict (spec sections 2.1-2.4, 5.3)."""
import os
import pickle
import struct
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import global_scope
from pyfluid.io import atomic, pickles
from pyfluid.io.pickles import UnsafePickleError, dump_arrays, load_arrays
from pyfluid.io.tensor_stream import (TensorReader, TensorStreamError, tensor_from_bytes,
                                      tensor_to_bytes)
from pyfluid.ops.types import VarType
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)


# -- tensor records ---------------------------------------------------------------------------
def test_record_layout_matches_spec():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = tensor_to_bytes(array)
    assert struct.unpack_from("<I", data, 0)[0] == 0            # DenseTensor version
    assert struct.unpack_from("<Q", data, 4)[0] == 0            # no LoD levels
    assert struct.unpack_from("<I", data, 12)[0] == 0           # inner tensor version
    desc_size = struct.unpack_from("<i", data, 16)[0]
    desc = data[20:20 + desc_size]
    assert desc == bytes([0x08, int(VarType.FP32), 0x10, 2, 0x10, 3])  # data_type, dims unpacked
    assert data[20 + desc_size:] == array.tobytes()


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "complex64", "complex128"])
def test_record_round_trip_every_dtype(dtype):
    array = np.random.randint(-3, 10, size=(3, 2, 4)).astype(dtype)
    back, lod = tensor_from_bytes(tensor_to_bytes(array))
    assert back.dtype == array.dtype and back.shape == array.shape and lod == []
    np.testing.assert_array_equal(back, array)
    assert back.flags.writeable and (back.base is None or isinstance(back.base, np.ndarray))


def test_record_zero_d_empty_and_lod():
    scalar, _ = tensor_from_bytes(tensor_to_bytes(np.array(2.5, dtype=np.float32)))
    assert scalar.shape == () and scalar == np.float32(2.5)
    empty, _ = tensor_from_bytes(tensor_to_bytes(np.zeros((0, 4), dtype=np.int64)))
    assert empty.shape == (0, 4)
    values, lod = tensor_from_bytes(tensor_to_bytes(np.ones((5, 1), np.float32), [[0, 2, 5]]))
    assert lod == [[0, 2, 5]] and values.shape == (5, 1)


def test_non_contiguous_arrays_are_written_in_c_order():
    array = np.arange(12, dtype=np.int32).reshape(3, 4).T
    back, _ = tensor_from_bytes(tensor_to_bytes(array))
    np.testing.assert_array_equal(back, array)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: struct.pack("<I", 7) + d[4:], "expected file format: 0, but 7 found"),
    (lambda d: d[:12] + struct.pack("<I", 3) + d[16:], "tensor version 3 is not supported"),
    (lambda d: d[:16] + struct.pack("<i", -2) + d[20:], "desc size should >= 0"),
    (lambda d: d[:16] + struct.pack("<i", 3) + b"\xff\xff\xff" + d[26:],
     "Cannot parse tensor desc"),
    (lambda d: d[:-1], "needs 24 bytes but only 23 are left"),
    (lambda d: d[:10], "unexpected end of data"),
    (lambda d: d[:4] + struct.pack("<Q", 2**60) + d[12:], "LoD levels"),
])
def test_corrupt_records_raise_clear_errors(mutate, message):
    data = tensor_to_bytes(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(TensorStreamError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tensor_from_bytes(mutate(data))


def test_trailing_bytes_after_a_single_record_are_an_error():
    with pytest.raises(TensorStreamError, match="unexpected bytes after"):
        tensor_from_bytes(tensor_to_bytes(np.zeros(2, np.float32)) + b"\0")


def test_huge_claimed_dims_do_not_allocate():
    data = tensor_to_bytes(np.zeros(1, np.float32))
    forged = data[:16] + struct.pack("<i", 8) + bytes([0x08, 5, 0x10]) + \
        bytes([0xff, 0xff, 0xff, 0xff, 0x0f])
    with pytest.raises(TensorStreamError, match="truncated"):
        tensor_from_bytes(forged)


@needs_shared
@pytest.mark.parametrize("name", ["mlp_small", "convnet_small", "norm_mix"])
def test_paddle_pdiparams_parse_and_rewrite_byte_identical(name):
    data = open(os.path.join(FIXTURES, name + ".pdiparams"), "rb").read()
    reader, arrays = TensorReader(data), []
    while not reader.at_end:
        arrays.append(reader.read()[0])
    assert b"".join(tensor_to_bytes(a) for a in arrays) == data


# -- pickles ----------------------------------------------------------------------------------
@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_pickles_round_trip_and_plain_pickle_reads_them(protocol):
    arrays = {"fc_0.w_0": np.random.rand(3, 2).astype(np.float32),
              "step": np.array([7], dtype=np.int64), "scalar": np.array(1.5)}
    data = dump_arrays(arrays, protocol)
    assert b"numpy.core.multiarray" in data and b"numpy._core" not in data   # NumPy 1 can read it
    for loaded in (load_arrays(data), pickle.loads(data)):
        assert loaded.keys() == arrays.keys()
        for k in arrays:
            np.testing.assert_array_equal(loaded[k], arrays[k])
            assert loaded[k].dtype == arrays[k].dtype


def test_big_arrays_are_sliced_for_protocols_2_and_3(monkeypatch):
    monkeypatch.setattr(pickles, "MAX_SLICE_BYTES", 40)         # 10 float32 per slice
    big = np.arange(25, dtype=np.float32).reshape(5, 5)
    raw = pickle.loads(dump_arrays({"w": big, "b": np.ones(3, np.float32)}, protocol=2))
    assert sorted(raw) == ["UnpackBigParamInfor@@", "b", "w@@.0", "w@@.1", "w@@.2"]
    assert raw["UnpackBigParamInfor@@"]["w"]["OriginShape"] == (5, 5)
    np.testing.assert_array_equal(load_arrays(dump_arrays({"w": big}, protocol=3))["w"], big)
    assert "UnpackBigParamInfor@@" not in pickle.loads(dump_arrays({"w": big}, protocol=4))


def test_numpy2_and_ordered_dict_pickles_are_accepted():
    value = np.arange(4, dtype=np.int32)
    loaded = load_arrays(pickle.dumps(OrderedDict(a=value), protocol=2))
    np.testing.assert_array_equal(loaded["a"], value)


class _RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("protocol", [2, 4])
def test_pickle_that_runs_code_is_refused_and_nothing_runs(tmp_path, protocol):
    marker = tmp_path / "pwned"
    data = pickle.dumps({"w": _RunsCode(marker)}, protocol=protocol)
    with pytest.raises(UnsafePickleError, match="posix.system|os.system"):
        load_arrays(data)
    assert not marker.exists()
    assert pickle.loads(data) == {"w": 0} and marker.exists()   # live payload when unrestricted


@pytest.mark.parametrize("payload, message", [
    (pickle.dumps({"w": np.array([object()] * 0 + [1, "a"], dtype=object)}), "object"),
    (pickle.dumps([np.zeros(2)]), "expected a dict"),
    (pickle.dumps({"w": 3.0}), "plain numeric numpy array"),
    (pickle.dumps({1: np.zeros(2)}), "not a variable name"),
    (pickle.dumps({"w": eval}), "builtins.eval"),
    (b"\x80\x02cnumpy\ndtype\nN}X\x08\x00\x00\x00__call__K\x01s\x86b.",   # BUILD on a global
     "tries to modify numpy.dtype"),
    (b"not a pickle at all", "not a valid pickle"),
])
def test_restricted_unpickler_rejects_everything_else(payload, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        load_arrays(payload)


# -- atomic writes ----------------------------------------------------------------------------
def test_atomic_write_replaces_and_leaves_no_temporaries(tmp_path):
    path = tmp_path / "f.bin"
    atomic.write_file(str(path), b"one")
    atomic.write_file(str(path), b"two")
    assert path.read_bytes() == b"two" and os.listdir(tmp_path) == ["f.bin"]


def test_failed_atomic_group_write_leaves_previous_files_intact(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    atomic.write_files({str(a): b"old a", str(b): b"old b"})
    calls = []

    def failing_fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space left"):
        atomic.write_files({str(a): b"new a", str(b): b"new b"})
    assert a.read_bytes() == b"old a" and b.read_bytes() == b"old b"
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_atomic_write_refuses_a_directory(tmp_path):
    with pytest.raises(ValueError, match="is an existing directory"):
        atomic.write_file(str(tmp_path), b"x")


# -- pruning (spec PG-6) and state dicts ------------------------------------------------------
def _two_branch_program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        hidden = paddle.static.nn.fc(x, 4, activation="relu")
        left = paddle.static.nn.fc(hidden, 2)
        right = paddle.tanh(hidden)
    return main, startup, x, hidden, left, right


def test_prune_with_input_keeps_only_what_the_targets_need():
    main, _, x, hidden, left, right = _two_branch_program()
    pruned = main._prune_with_input(["x"], [right])
    assert [op.type for op in pruned.global_block().ops] == ["mul", "elementwise_add", "relu",
                                                            "tanh"]
    assert "fc_1.w_0" not in pruned.global_block().vars
    assert list(pruned.global_block().vars) == sorted(pruned.global_block().vars)
    fed_hidden = main._prune_with_input([hidden.name], [left])
    assert [op.type for op in fed_hidden.global_block().ops] == ["mul", "elementwise_add"]
    assert len(main.global_block().ops) == 6                  # the original is untouched


def test_prune_with_input_rejects_non_str_feed_names():
    main, _, x, _, left, _ = _two_branch_program()
    with pytest.raises(ValueError, match="All feeded_var_names of Program._prune_with_input\\(\\) "
                                         "can only be str, but received <class"):
        main._prune_with_input([x], [left])
    with pytest.raises(ValueError, match="All targets of Program._prune_with_input"):
        main._prune_with_input(["x"], [3])


def test_program_state_dict_and_set_state_dict():
    main, startup, *_ = _two_branch_program()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with pytest.raises(ValueError, match="Can not find Variable 'fc_0.w_0' in the scope. Make "
                                         "sure it is initialized"):
        main.state_dict()
    exe.run(startup)
    state = main.state_dict("param")
    assert sorted(state) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    assert main.state_dict("opt") == {}
    with pytest.raises(ValueError, match="`mode` string should be 'param', 'opt' or 'all'"):
        main.state_dict("everything")
    new_w = np.full((3, 4), 0.5, np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        main.set_state_dict({"fc_0.w_0": new_w, "nope": new_w, "fc_1.b_0": np.zeros(5)})
    messages = " ".join(str(w.message) for w in caught)
    assert "Skip loading for 'nope'" in messages
    assert "fc_1.b_0 expected a shape [2], but the received shape is [5]" in messages
    np.testing.assert_array_equal(np.array(global_scope().find_var("fc_0.w_0").get_tensor()), new_w)
    assert np.array(global_scope().find_var("fc_1.b_0").get_tensor()).shape == (2,)
