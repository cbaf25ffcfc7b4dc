"""Byte-level comparison with Paddle 2.6.2's own files: the networks of ../shared/fixtures/paddle
are built again in pyfluid, given the fixtures' weights and saved with save_inference_model.
Our .pdiparams must equal Paddle's byte for byte; our .pdmodel must equal Paddle's op by op
(types, slots, argument names, attributes, var descs, version, op-version map) and byte for
byte once the only documented difference (op_callstack contents, docs/interop.md) is set aside.
Also: ops with "extra" outputs (XShape, Mask, ReserveSpace) run without them and keep them in
training programs."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import Scope, global_scope, scope_guard
from pyfluid.framework import unique_name
from pyfluid.framework.layer_helper import LayerHelper
from pyfluid.io.tensor_stream import TensorReader
from pyfluid.ops.registry import OpDef, get_op, registered_ops
from pyfluid.proto import framework_pb2 as pb
from shared_fixtures import PADDLE_FIXTURES, needs_shared

FIXTURES = str(PADDLE_FIXTURES)
needs_fixtures = needs_shared
PADDLE_PYTHON = os.environ.get("PADDLE_PYTHON") or (
    sys.executable if importlib.util.find_spec("paddle") else None)
needs_paddle = pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed "
                                  "(set PADDLE_PYTHON, see docs/interop.md)")


def _append(op_type, x, attrs, helper_name, extra_dtype=None):
    """Append ``op_type`` with Out and its extra output, as Paddle's Python layers do."""
    helper = LayerHelper(helper_name)
    out = helper.create_variable_for_type_inference(x.dtype)
    extra_slot = next(s.name for s in get_op(op_type).outputs if s.extra)
    extra = helper.create_variable_for_type_inference(extra_dtype or x.dtype, stop_gradient=True)
    helper.append_op(type=op_type, inputs={"X": [x]}, outputs={"Out": [out], extra_slot: [extra]},
                     attrs=attrs)
    return out


def _dropout(x, p):
    """paddle.nn.functional.dropout's static path (upscale_in_train, unseeded)."""
    return _append("dropout", x, {"dropout_prob": p, "is_test": False, "fix_seed": False,
                                  "seed": 0, "dropout_implementation": "upscale_in_train"},
                   "dropout", extra_dtype="uint8")


def mlp_small():
    x = paddle.static.data("x", [None, 784], "float32")
    hidden = paddle.static.nn.fc(x, 64, activation="relu")
    return [x], [paddle.nn.functional.softmax(paddle.static.nn.fc(hidden, 10))]


def convnet_small():
    image = paddle.static.data("image", [None, 1, 12, 12], "float32")
    conv = paddle.static.nn.conv2d(image, 4, 3, padding=1, act="relu")
    pooled = paddle.nn.functional.max_pool2d(conv, 2, 2)
    hidden = paddle.static.nn.fc(paddle.flatten(pooled, 1), 16, activation="tanh")
    logits = paddle.static.nn.fc(hidden, 3)
    return [image], [logits, paddle.nn.functional.softmax(logits)]


def norm_mix():
    feat = paddle.static.data("feat", [None, 10], "float32")
    hidden = paddle.static.nn.batch_norm(paddle.static.nn.fc(feat, 12), act="sigmoid")
    logits = paddle.static.nn.fc(_dropout(hidden, 0.3), 4)
    # name: pyfluid.sum names its output reduce_sum_<n>, Paddle sum_<n> (docs/interop.md)
    return [feat], [paddle.nn.functional.log_softmax(logits), paddle.sum(logits, axis=1,
                                                                          name="sum_0")]


NETWORKS = {"mlp_small": mlp_small, "convnet_small": convnet_small, "norm_mix": norm_mix}


def _fixture_weights(name):
    model = open(os.path.join(FIXTURES, name + ".pdmodel"), "rb").read()
    program = paddle.static.Program.parse_from_string(model)
    names = sorted(v.name for v in program.list_vars()
                   if v.persistable and v.name not in ("feed", "fetch"))
    reader = TensorReader(open(os.path.join(FIXTURES, name + ".pdiparams"), "rb").read())
    return {n: reader.read()[0] for n in names}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Build the three networks in one unique-name scope, in the order Paddle built them (so
    fc_0..fc_5 and the save_infer_model/scale_<i>.tmp_<k> names line up), train-mode programs
    cloned for test as the fixture script did, and save each with the fixture's weights."""
    folder = tmp_path_factory.mktemp("paddle_files")
    paddle.enable_static()
    try:
        with unique_name.guard(), scope_guard(Scope()):
            exe = paddle.static.Executor(paddle.CPUPlace())
            for name, build in NETWORKS.items():
                main, startup = paddle.static.Program(), paddle.static.Program()
                with paddle.static.program_guard(main, startup):
                    feeds, fetches = build()
                exe.run(startup)
                for var_name, value in _fixture_weights(name).items():
                    global_scope().var(var_name).get_tensor().set(value, paddle.CPUPlace())
                paddle.static.save_inference_model(str(folder / name), feeds, fetches, exe,
                                                   program=main.clone(for_test=True))
    finally:
        paddle.disable_static()
    return folder


def _desc(path):
    desc = pb.ProgramDesc()
    desc.ParseFromString(open(path, "rb").read())
    return desc


@needs_fixtures
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_pdiparams_are_paddles_bytes(saved, name):
    ours = open(saved / (name + ".pdiparams"), "rb").read()
    assert ours == open(os.path.join(FIXTURES, name + ".pdiparams"), "rb").read()


def assert_same_as_paddle(ours_path, paddle_path):
    """Op by op (types, slots, argument names, attributes, var descs, version, op-version
    map), then byte for byte once Paddle's op_callstack values are replaced by ours."""
    ours, theirs = _desc(ours_path), _desc(paddle_path)
    assert ours.version == theirs.version and ours.version.version == 2006002
    assert list(ours.op_version_map.pair) == list(theirs.op_version_map.pair)
    assert len(ours.blocks) == len(theirs.blocks) == 1
    block, paddle_block = ours.blocks[0], theirs.blocks[0]
    assert [v.name for v in block.vars] == [v.name for v in paddle_block.vars]
    for var, paddle_var in zip(block.vars, paddle_block.vars):
        assert var == paddle_var, var.name
    assert [op.type for op in block.ops] == [op.type for op in paddle_block.ops]
    with_callstack = 0
    for i, (op, paddle_op) in enumerate(zip(block.ops, paddle_block.ops)):
        where = f"op {i} ({op.type})"
        assert [(s.parameter, list(s.arguments)) for s in op.inputs] == \
            [(s.parameter, list(s.arguments)) for s in paddle_op.inputs], where
        assert [(s.parameter, list(s.arguments)) for s in op.outputs] == \
            [(s.parameter, list(s.arguments)) for s in paddle_op.outputs], where
        assert [(a.name, a.type) for a in op.attrs] == \
            [(a.name, a.type) for a in paddle_op.attrs], where
        for attr, paddle_attr in zip(op.attrs, paddle_op.attrs):
            if attr.name == "op_callstack":     # a traceback of the saving process
                paddle_attr.CopyFrom(attr)
                with_callstack += 1
            assert attr == paddle_attr, f"{where} attr {attr.name}"
    assert with_callstack >= 2                  # feed and fetch keep theirs, as in Paddle
    assert theirs.SerializeToString() == open(ours_path, "rb").read()


@needs_fixtures
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_pdmodel_is_paddles_but_for_op_callstack(saved, name):
    assert_same_as_paddle(saved / (name + ".pdmodel"), os.path.join(FIXTURES,
                                                                      name + ".pdmodel"))


@needs_fixtures
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_our_files_reproduce_paddle_outputs(saved, name):
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feed_names, fetch_targets = paddle.static.load_inference_model(
        str(saved / name), exe)
    io = np.load(os.path.join(FIXTURES, name + ".io.npz"))
    outputs = exe.run(program, feed={feed_names[0]: io["x"]}, fetch_list=fetch_targets)
    for i, got in enumerate(outputs):
        np.testing.assert_allclose(got, io[f"y{i}"], rtol=0, atol=1e-5)


# -- a wider network, saved by real Paddle 2.6 and by us -------------------------------------
PADDLE_WIDE_NET = textwrap.dedent("""
    import sys, numpy as np, paddle
    import paddle.nn.functional as F
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        image = paddle.static.data("image", [None, 3, 8, 8], "float32")
        h = F.max_pool2d(paddle.static.nn.conv2d(image, 4, 3, padding=1, act="relu"), 2)
        h = F.gelu(paddle.static.nn.layer_norm(paddle.flatten(h, 1)))
        h = paddle.transpose(paddle.reshape(h, [-1, 8, 8]), [0, 2, 1])
        h = paddle.squeeze(paddle.unsqueeze(h, [1]), [1])
        h = paddle.static.nn.batch_norm(paddle.static.nn.fc(paddle.flatten(h, 1), 5), act="relu")
        h = F.leaky_relu(F.dropout(h, 0.5), 0.1)
        logits = paddle.static.nn.fc(paddle.concat([h, F.hardswish(h)], axis=1), 3)
        outs = [F.softmax(logits), paddle.matmul(logits, logits, transpose_y=True)]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    test_program = main.clone(for_test=True)
    x = np.load(sys.argv[1] + "/input.npy")
    np.savez(sys.argv[1] + "/paddle_out.npz", *exe.run(test_program, feed={"image": x},
                                                       fetch_list=outs))
    paddle.static.save_inference_model(sys.argv[1] + "/paddle", [image], outs, exe,
                                       program=test_program)
""")


def wide_net():
    """PADDLE_WIDE_NET in pyfluid (transpose/squeeze/unsqueeze/dropout through LayerHelper:
    pyfluid has no paddle.squeeze, paddle.unsqueeze or F.dropout yet)."""
    functional = paddle.nn.functional
    image = paddle.static.data("image", [None, 3, 8, 8], "float32")
    h = functional.max_pool2d(paddle.static.nn.conv2d(image, 4, 3, padding=1, act="relu"), 2)
    h = functional.gelu(paddle.static.nn.layer_norm(paddle.flatten(h, 1)))
    h = _append("transpose2", paddle.reshape(h, [-1, 8, 8]), {"axis": [0, 2, 1]}, "transpose")
    h = _append("squeeze2", _append("unsqueeze2", h, {"axes": [1]}, "unsqueeze2"),
                {"axes": [1]}, "squeeze")
    h = paddle.static.nn.batch_norm(paddle.static.nn.fc(paddle.flatten(h, 1), 5),
                                    act="relu")
    h = functional.leaky_relu(_dropout(h, 0.5), 0.1)
    logits = paddle.static.nn.fc(paddle.concat([h, functional.hardswish(h)], axis=1), 3)
    return [image], [functional.softmax(logits), paddle.matmul(logits, logits, transpose_y=True)]


@needs_paddle
def test_wide_network_saved_by_paddle_and_by_us_match(tmp_path):
    x = np.random.rand(4, 3, 8, 8).astype(np.float32)
    np.save(tmp_path / "input.npy", x)
    script = tmp_path / "paddle_side.py"
    script.write_text(PADDLE_WIDE_NET)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([PADDLE_PYTHON, str(script), str(tmp_path)], capture_output=True,
                         text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert run.returncode == 0, run.stderr[-3000:]

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        feeds, fetches = wide_net()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    paddle_files = str(tmp_path / "paddle")
    program = paddle.static.Program.parse_from_string(open(paddle_files + ".pdmodel",
                                                           "rb").read())
    names = sorted(v.name for v in program.list_vars()
                   if v.persistable and v.name not in ("feed", "fetch"))
    reader = TensorReader(open(paddle_files + ".pdiparams", "rb").read())
    for var_name in names:
        global_scope().var(var_name).get_tensor().set(reader.read()[0], paddle.CPUPlace())
    paddle.static.save_inference_model(str(tmp_path / "ours"), feeds, fetches, exe,
                                       program=main.clone(for_test=True))
    assert open(tmp_path / "ours.pdiparams", "rb").read() == \
        open(paddle_files + ".pdiparams", "rb").read()
    assert_same_as_paddle(tmp_path / "ours.pdmodel", paddle_files + ".pdmodel")
    with scope_guard(Scope()):
        program, feed_names, targets = paddle.static.load_inference_model(str(tmp_path / "ours"),
                                                                          exe)
        ours = exe.run(program, feed={feed_names[0]: x}, fetch_list=targets)
    expected = np.load(tmp_path / "paddle_out.npz")
    for i, got in enumerate(ours):
        np.testing.assert_allclose(got, expected[f"arr_{i}"], rtol=0, atol=1e-5)


# -- extra outputs ----------------------------------------------------------------------------
def test_extra_outputs_declared_as_in_paddle():
    extra = {t: [s.name for s in get_op(t).outputs if s.extra] for t in registered_ops()}
    assert {t: names for t, names in extra.items() if names} == {
        "batch_norm": ["ReserveSpace"], "dropout": ["Mask"], "einsum": ["InnerCache", "XShape"],
        "flatten_contiguous_range": ["XShape"], "squeeze2": ["XShape"],
        "instance_norm": ["SavedMean", "SavedVariance"],
        "transpose2": ["XShape"], "unsqueeze2": ["XShape"]}
    assert all(s.dispensable for t in extra for s in get_op(t).outputs if s.extra)
    with pytest.raises(ValueError, match=r"op 'demo': extra_outputs \['Mask'\] are not output"):
        OpDef("demo", inputs=["X"], outputs=["Out"], extra_outputs=["Mask"])


def _shape_net():
    x = paddle.static.data("x", [None, 2, 3], "float32")
    x.stop_gradient = False
    h = _append("transpose2", x, {"axis": [0, 2, 1]}, "transpose")
    h = _append("unsqueeze2", h, {"axes": [1]}, "unsqueeze")
    h = _append("squeeze2", h, {"axes": [1]}, "squeeze")
    h = paddle.flatten(h, 1)
    h = paddle.static.nn.batch_norm(paddle.static.nn.fc(h, 5), act="relu")
    return x, paddle.static.nn.fc(_dropout(h, 0.5), 2)


def test_training_keeps_extra_outputs_and_saved_model_runs_without_them(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, out = _shape_net()
        loss = paddle.mean(out)
        paddle.optimizer.SGD(0.1).minimize(loss)
    grads = {op.type: op for op in main.global_block().ops if op.type.endswith("_grad")}
    for grad_type, slot in (("flatten_contiguous_range_grad", "XShape"),
                            ("squeeze2_grad", "XShape"), ("unsqueeze2_grad", "XShape"),
                            ("dropout_grad", "Mask"), ("batch_norm_grad", "ReserveSpace")):
        assert grads[grad_type].input(slot), grad_type     # the grad ops read them
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    data = np.random.rand(4, 2, 3).astype(np.float32)
    losses = [exe.run(main, feed={"x": data}, fetch_list=[loss])[0] for _ in range(3)]
    assert np.all(np.isfinite(losses)) and losses[-1] != losses[0]

    test_program = main.clone(for_test=True)
    expected = exe.run(test_program, feed={"x": data}, fetch_list=[out])[0]
    paddle.static.save_inference_model(str(tmp_path / "m"), [x], [out], exe,
                                       program=test_program)
    ops = _desc(tmp_path / "m.pdmodel").blocks[0].ops
    kept = {(op.type, s.parameter) for op in ops for s in op.outputs}
    assert not kept & {("transpose2", "XShape"), ("squeeze2", "XShape"),
                       ("unsqueeze2", "XShape"), ("flatten_contiguous_range", "XShape"),
                       ("dropout", "Mask"), ("batch_norm", "ReserveSpace")}
    dropout = next(op for op in ops if op.type == "dropout")
    assert {a.name for a in dropout.attrs}.isdisjoint({"fix_seed", "seed"})
    forward = [op for op in main.global_block().ops if op.type in ("dropout", "squeeze2")]
    assert all(op.output("Mask") or op.output("XShape") for op in forward)  # user's untouched
    with scope_guard(Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "m"), exe)
        got = exe.run(program, feed={feeds[0]: data}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


def test_clip_extra_false_keeps_extra_outputs(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, out = _shape_net()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    paddle.static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main,
                                       clip_extra=False)
    ops = _desc(tmp_path / "m.pdmodel").blocks[0].ops
    assert next(op for op in ops if op.type == "dropout").outputs[0].parameter == "Mask"
    assert any(s.parameter == "XShape" for op in ops if op.type == "squeeze2"
               for s in op.outputs)
