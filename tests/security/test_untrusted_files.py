"""Finding 5: loaders read only regular files, only names inside the model folder, with size
limits; loading memory stays within a small multiple of the file size and nothing stays
cached; set_program_state checks shapes even when the scope holds no value yet."""
from __future__ import annotations

import gc
import os
import tracemalloc

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import Scope, global_scope, scope_guard
from pyfluid.framework import ProgramError
from pyfluid.framework.desc_reader import MEMORY_FACTOR, MEMORY_SLACK
from pyfluid.framework.program import program_from_bytes
from pyfluid.io import ModelFileError
from pyfluid.io.tensor_stream import tensor_to_bytes

from . import payloads
from .isolation import last_line, run_python


def _save_vars_layout(folder, weight_name: str) -> None:
    """A program in the old directory layout (``__model__`` plus one file per variable)
    whose only parameter has the given name."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        out = paddle.static.nn.fc(x, 2)
    exe = paddle.static.Executor()
    exe.run(startup)
    paddle.static.save_inference_model(str(folder / "m"), [x], [out], exe, program=main)
    program = paddle.static.deserialize_program((folder / "m.pdmodel").read_bytes())
    block = program.global_block()
    weight = next(v for v in block.vars.values() if v.name.endswith("w_0"))
    block._rename_var(weight.name, weight_name)
    (folder / "__model__").write_bytes(program.desc.serialize_to_string())


def _load_old_layout(folder):
    return paddle.static.load_inference_model(str(folder), paddle.static.Executor(),
                                              model_filename="__model__")


def test_a_variable_name_cannot_leave_the_model_folder(tmp_path):
    model_dir = tmp_path / "a" / "b" / "model"
    model_dir.mkdir(parents=True)
    _save_vars_layout(model_dir, "../../outside")
    outside = tmp_path / "a" / "outside"
    (model_dir / "fc_0.b_0").write_bytes(tensor_to_bytes(np.zeros(2, "float32")))
    outside.write_bytes(tensor_to_bytes(np.zeros((3, 2), "float32")))
    with pytest.raises(ModelFileError, match="outside the model folder"):
        _load_old_layout(model_dir)


DEVICE_LOAD = """
import os, sys
import pyfluid as paddle
from pyfluid.io import ModelFileError
from pyfluid.io.tensor_stream import tensor_to_bytes
paddle.enable_static()
try:
    paddle.static.load_inference_model(sys.argv[1], paddle.static.Executor(), **eval(sys.argv[2]))
except ModelFileError as exc:
    print("refused:", str(exc).replace(chr(10), " "))
except BaseException as exc:
    print("leaked", type(exc).__name__)
else:
    print("loaded")
"""


def test_a_variable_named_like_a_device_is_refused(tmp_path):
    _save_vars_layout(tmp_path, "/dev/zero")
    verdict = last_line(run_python(DEVICE_LOAD, str(tmp_path), "{'model_filename': '__model__'}",
                                   timeout=60, memory_mb=1024))
    assert verdict.startswith("refused:") and "/dev/zero" in verdict, verdict


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "fifo"])
def test_a_model_that_is_not_a_regular_file_is_refused(kind, tmp_path):
    path = tmp_path / "m.pdmodel"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)
    verdict = last_line(run_python(DEVICE_LOAD, str(tmp_path / "m"), "{}", timeout=60,
                                   memory_mb=1024))
    assert verdict.startswith("refused:") and "not a regular file" in verdict, verdict


def _peak_while(load) -> tuple[int, object]:
    gc.collect()
    tracemalloc.start()
    try:
        result = load()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


# the model has 200k ops; the default suite loads a smaller one (the ratio does not
# depend on the size): PYFLUID_BIG_MODEL_OPS=200000 runs the full one (about a minute)
BIG_MODEL_OPS = int(os.environ.get("PYFLUID_BIG_MODEL_OPS", "20000"))


def test_loading_a_big_model_stays_within_a_small_multiple_of_its_size():
    data = payloads.chain_of_scale_ops(BIG_MODEL_OPS)
    peak, program = _peak_while(lambda: program_from_bytes(data))
    assert len(program.global_block().ops) == BIG_MODEL_OPS
    assert peak < 16 * len(data), f"{peak / len(data):.1f} x the file size"


def test_a_model_of_tiny_ops_is_refused_within_its_memory_budget():
    data = payloads.tiny_ops(300_000)              # 1.5 MB that would build 90 x that
    def load():
        with pytest.raises(ProgramError, match="too many"):
            program_from_bytes(data)
    peak, _ = _peak_while(load)
    assert peak < MEMORY_FACTOR * len(data) + MEMORY_SLACK, f"{peak >> 20} MiB"


def test_nothing_stays_cached_after_a_big_model_is_freed():
    data = payloads.big_attributes(300, 1000)
    gc.collect()
    tracemalloc.start()
    try:
        program = program_from_bytes(data)
        assert len(program.global_block().ops) == 300
        del program
        gc.collect()
        left = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert left < 1 << 20, f"{left >> 20} MiB stay allocated after the program is freed"


def test_set_program_state_checks_shapes_against_the_program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 5], "float32")
        paddle.static.nn.fc(x, 5)
    weight = next(v for v in main.list_vars() if v.name.endswith("w_0"))
    global_scope().var(weight.name)                         # declared, holds no value
    with pytest.raises((AssertionError, ValueError), match=r"shape"):
        paddle.static.set_program_state(main, {weight.name: np.zeros((5, 3), "float32")})
    assert not global_scope().find_var(weight.name).is_initialized()


@pytest.mark.parametrize("attr, value, message", [
    ("dtype", 999, "attribute dtype=999 is not a data type"),
    ("shape", [2] * 80, "attribute shape has rank 80"),
])
def test_bad_attribute_values_are_refused_naming_the_op(attr, value, message, tmp_path):
    x = paddle.static.data("x", [None, 3], "float32")
    out = x + paddle.full([1, 3], 2.0, "float32")
    exe = paddle.static.Executor()
    paddle.static.save_inference_model(str(tmp_path / "m"), [x], [out], exe)
    program = paddle.static.deserialize_program((tmp_path / "m.pdmodel").read_bytes())
    op = next(op for op in program.global_block().ops if op.type == "fill_constant")
    op._set_attr(attr, value)
    (tmp_path / "m.pdmodel").write_bytes(program.desc.serialize_to_string())
    os.remove(tmp_path / "m.pdsha256")                  # edited by hand
    with pytest.raises(ModelFileError, match=rf"op #\d+ 'fill_constant'.*{message}"):
        paddle.static.load_inference_model(str(tmp_path / "m"), exe)
