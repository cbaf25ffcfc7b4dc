"""The channel_last inference pass (framework/passes/channel_last.py): where a depthwise
network's small-map part switches to NHWC, that the NCHW values are made only where read
(the region's end, a fetch), that results match the NCHW program, and that BuildStrategy
switches it off."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework.passes import apply_passes

F = paddle.nn.functional


def build():
    """A MobileNetV2-like inference program on 3 x 32 x 32 inputs: a stride-2 stem, then
    inverted residual blocks (1x1 expand, depthwise 3x3, 1x1 project, a residual add) on
    16 x 16 and 8 x 8 maps, pooling and fc. Returns (test program, startup, names)."""
    main, startup = static.Program(), static.Program()

    def conv_bn(x, filters, size, stride=1, groups=1, act="relu6"):
        h = static.nn.conv2d(x, filters, size, stride=stride, padding=size // 2, groups=groups,
                             bias_attr=False)
        h = static.nn.batch_norm(h)
        return F.relu6(h) if act else h

    with static.program_guard(main, startup):
        x = static.data("x", [None, 3, 32, 32], "float32")
        stem = conv_bn(x, 32, 3, stride=2)                       # 16 x 16, NCHW
        h = conv_bn(stem, 32, 3, groups=32)                      # depthwise: the region starts
        h = conv_bn(h, 32, 1, act=None)
        block = paddle.add(h, stem)                              # residual
        h = conv_bn(block, 64, 1)
        h = conv_bn(h, 64, 3, stride=2, groups=64)               # 8 x 8
        h = conv_bn(h, 48, 1, act=None)
        pooled = F.adaptive_avg_pool2d(h, 1)
        logits = static.nn.fc(paddle.flatten(pooled, start_axis=1), 10)
    test = main.clone(for_test=True)
    return test, startup, {"block": block.name, "inner": h.name, "logits": logits.name}


@pytest.fixture(scope="module")
def net():
    test, startup, names = build()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    for name in scope.local_var_names():          # non-trivial batch norm statistics
        tensor = scope.find_var(name).get_tensor()
        value = np.array(tensor)
        tensor.set((value + rng.uniform(0.1, 0.5, value.shape)).astype("float32"))
    return exe, scope, test, names


def strategy(**flags):
    bs = static.BuildStrategy()
    for name, value in flags.items():
        setattr(bs, name, value)
    return bs


def run(net, fetch, batch=3, **flags):
    exe, scope, test, names = net
    x = np.random.default_rng(batch).standard_normal((batch, 3, 32, 32)).astype("float32")
    compiled = static.CompiledProgram(test, build_strategy=strategy(**flags))
    return exe.run(compiled, feed={"x": x}, fetch_list=[names[f] for f in fetch], scope=scope)


def optimized(net, fetch=("logits",), **flags):
    exe, scope, test, names = net
    return apply_passes(test, strategy(**flags), ("x",), tuple(names[f] for f in fetch))


def test_the_small_map_part_runs_channel_last(net):
    ops = optimized(net).global_block().ops
    convs = [op for op in ops if op.type.startswith("fused_conv2d")]
    layouts = [op.attrs["data_format"] for op in convs]
    assert layouts == ["NHWC"] * 6     # the stem joins: its im2col product writes NHWC
    assert [op.attrs["data_format"] for op in ops if op.type == "pool2d"] == ["NHWC"]
    transposes = [op for op in ops if op.type == "transpose2"]
    assert [op.attrs["axis"] for op in transposes] == [[0, 2, 3, 1], [0, 3, 1, 2]]
    entry, exit_ = transposes
    assert entry.input("X") == ["x"] and ops.index(entry) < ops.index(convs[0])
    assert ops.index(exit_) > ops.index(convs[-1])
    assert convs[1].input("Input") == convs[0].output("Output")     # no transpose between
    # the residual input is the stem's NHWC twin, made once for both readers
    assert convs[2].input("ResidualData") == convs[1].input("Input")


@pytest.mark.parametrize("batch", [1, 3])
def test_results_match_the_nchw_program(net, batch):
    want = run(net, ["logits"], batch, channel_last=False)[0]
    got = run(net, ["logits"], batch)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())


def test_a_fetched_value_inside_the_region_is_made_nchw(net):
    ops = optimized(net, fetch=("logits", "inner", "block")).global_block().ops
    assert [op.attrs["axis"] for op in ops if op.type == "transpose2"].count([0, 3, 1, 2]) == 3
    want = run(net, ["inner", "block", "logits"], channel_last=False)
    got = run(net, ["inner", "block", "logits"])
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6 * np.abs(w).max())


def test_build_strategy_switches_it_off(net):
    ops = optimized(net, channel_last=False).global_block().ops
    assert "transpose2" not in [op.type for op in ops]
    assert all(op.attrs.get("data_format", "NCHW") == "NCHW" for op in ops)


def test_networks_without_small_depthwise_maps_are_left_alone():
    """A plain CNN (no depthwise layer to start a region) keeps NCHW everywhere."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3, 16, 16], "float32")
        h = F.relu(static.nn.conv2d(x, 8, 3, padding=1))
        h = F.relu(static.nn.conv2d(h, 8, 1))
        out = F.adaptive_avg_pool2d(h, 1)
    program = apply_passes(main.clone(for_test=True), strategy(), ("x",), (out.name,))
    assert "transpose2" not in [op.type for op in program.global_block().ops]


@pytest.mark.parametrize("groups,joins", [(1, True), (2, False)])
def test_the_convolution_before_a_region_joins_it_if_it_writes_nhwc(groups, joins):
    """An im2col convolution of one group writes its product transposed, NHWC, so the
    region starts there; a grouped one stays NCHW and the region's input is transposed."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4, 32, 32], "float32")
        h = F.relu6(static.nn.conv2d(x, 32, 3, stride=2, padding=1, groups=groups))
        out = static.nn.conv2d(h, 32, 3, padding=1, groups=32)
    program = apply_passes(main.clone(for_test=True), strategy(), ("x",), (out.name,))
    ops = program.global_block().ops
    layouts = [op.attrs["data_format"] for op in ops if op.type.startswith("fused_conv2d")]
    assert layouts == (["NHWC", "NHWC"] if joins else ["NCHW", "NHWC"])
    entry = next(op for op in ops if op.type == "transpose2")
    assert entry.input("X") == (["x"] if joins else [ops[0].output("Output")[0]])
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.random.default_rng(1).standard_normal((2, 4, 32, 32)).astype("float32")}
    got, want = (exe.run(static.CompiledProgram(main.clone(for_test=True),
                                                build_strategy=strategy(channel_last=on)),
                         feed=feed, fetch_list=[out.name], scope=scope)[0]
                 for on in (True, False))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size,converted", [(112, True), (113, False)])
def test_a_depthwise_layer_starts_a_region_on_maps_up_to_112(size, converted):
    """MobileNetV2's first depthwise layer at 224 (32 channels, 112 x 112) starts the NHWC
    region (its taps stream less memory there); larger maps stay NCHW."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 32, size, size], "float32")
        h = F.relu6(static.nn.conv2d(x, 32, 3, padding=1, groups=32))
        out = static.nn.conv2d(h, 16, 1)
    program = apply_passes(main.clone(for_test=True), strategy(), ("x",), (out.name,))
    layouts = [op.attrs["data_format"] for op in program.global_block().ops
               if op.type.startswith("fused_conv2d") or op.type.endswith("conv2d")]
    assert layouts == (["NHWC", "NHWC"] if converted else ["NCHW", "NCHW"])


def test_channel_last_pointwise_filters_are_transposed_once(net):
    """Every NHWC pointwise convolution reads its filter's (C, OC) transpose, computed by a
    parameter-only op the executor hoists; switched off, they stay fused_conv2d."""
    ops = optimized(net).global_block().ops
    pointwise = [op for op in ops if op.type == "fused_conv2d_pointwise"]
    transposes = [op for op in ops if op.type == "pointwise_filter_transpose"]
    assert len(pointwise) == 3 and len(transposes) == 3
    assert all(op.attrs["data_format"] == "NHWC" for op in pointwise)
    assert {op.input("Transposed")[0] for op in pointwise} == {
        op.output("Output")[0] for op in transposes}
    off = optimized(net, pointwise_transposed=False).global_block().ops
    assert not {"fused_conv2d_pointwise", "pointwise_filter_transpose"} & {op.type for op in off}
    want = run(net, ["logits"], 2, pointwise_transposed=False)[0]
    np.testing.assert_allclose(run(net, ["logits"], 2)[0], want, rtol=1e-5,
                               atol=1e-6 * np.abs(want).max())


@pytest.mark.parametrize("layout,stride,rows", [("NHWC", 1, 25), ("NHWC", 2, 9),
                                                ("NHWC", 1, 100), ("NCHW", 1, 25)])
def test_fused_conv2d_pointwise_matches_fused_conv2d(layout, stride, rows):
    """The op on its own: positions times the transposed filter (a few rows and many, strided)
    and, NCHW, the filter's own kernel; the same values as fused_conv2d."""
    from test_cnn_ops import run_op
    rng = np.random.default_rng(stride)
    side = int(rows ** 0.5) * stride
    shape = (2, side, side, 6) if layout == "NHWC" else (2, 6, side, side)
    x = rng.standard_normal(shape).astype("float32")
    w = rng.standard_normal((5, 6, 1, 1)).astype("float32")
    bias = rng.standard_normal(5).astype("float32")
    attrs = {"strides": [stride, stride], "data_format": layout, "fuse_activation": "relu"}
    want = run_op("fused_conv2d", {"Input": x, "Filter": w, "Bias": bias}, attrs)["Output"]
    transposed = run_op("pointwise_filter_transpose", {"Filter": w}, {})["Output"]
    np.testing.assert_array_equal(transposed, w[:, :, 0, 0].T)
    got = run_op("fused_conv2d_pointwise", {"Input": x, "Filter": w, "Transposed": transposed,
                                            "Bias": bias}, attrs)["Output"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("act", ["relu6", "leaky_relu", "hard_swish", ""])
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("kind,c,oc,hw,stride", [("Im2col", 16, 128, 24, 1),
                                                ("GridIm2col", 3, 8, 24, 2)])
def test_an_nhwc_stem_adds_bias_and_activation_in_its_product(monkeypatch, act, residual,
                                                              kind, c, oc, hw, stride):
    """A 3x3 fused_conv2d, NHWC, on 3 images: im2col per image (16 -> 128 channels, 576
    positions) or on the flat grid (3 -> 8, stride 2). The product adds the bias and the
    kernel applies the activation (in place or not); with a residual, the plain epilogue.
    The values of the NCHW op."""
    from test_cnn_ops import run_op
    from pyfluid.ops import conv_kernels
    cls = getattr(conv_kernels, kind)
    calls = []
    original = cls.forward_to_channel_last
    monkeypatch.setattr(cls, "forward_to_channel_last",
                        lambda self, *a: calls.append(len(a)) or original(self, *a))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, c, hw, hw)).astype("float32")
    inputs = {"Input": x, "Filter": rng.standard_normal((oc, c, 3, 3)).astype("float32"),
              "Bias": rng.standard_normal(oc).astype("float32")}
    if residual:
        side = hw // stride
        inputs["ResidualData"] = rng.standard_normal((3, oc, side, side)).astype("float32")
    attrs = {"strides": [stride, stride], "paddings": [1, 1], "fuse_activation": act,
             "fuse_alpha": 0.1 if act == "leaky_relu" else 0.0}
    want = run_op("fused_conv2d", inputs, attrs)["Output"]
    nhwc = {k: (v.transpose(0, 2, 3, 1) if v.ndim == 4 and k != "Filter" else v)
            for k, v in inputs.items()}
    got = run_op("fused_conv2d", nhwc, {**attrs, "data_format": "NHWC"})["Output"]
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)
    assert calls == ([2] if residual else [4])     # (x, w) for the epilogue, else all four


@pytest.mark.parametrize("oc,residual,by_product", [(12, False, True), (11, False, False),
                                                    (12, True, False)])
@pytest.mark.parametrize("act", ["relu6", "leaky_relu"])
def test_an_expanding_pointwise_layer_adds_its_bias_in_the_product(monkeypatch, oc, residual,
                                                                   by_product, act):
    """NHWC, 6 -> 12 channels on 2 x 24 x 23 positions (at least 1024), a bias, no residual:
    blocks of positions next to a column of ones times the filter and bias (three blocks
    of 500, the last partial); the same values as fused_conv2d. Less than twice the
    channels, or a residual: the plain product."""
    from test_cnn_ops import run_op
    from pyfluid.ops import fused_conv
    monkeypatch.setattr(fused_conv, "BIAS_COLUMN_BLOCK", 500)
    taken = []
    expand = fused_conv._expand_with_bias
    monkeypatch.setattr(fused_conv, "_expand_with_bias",
                        lambda *a: taken.append(1) or expand(*a))
    rng = np.random.default_rng(oc)
    x = rng.standard_normal((2, 24, 23, 6)).astype("float32")
    inputs = {"Input": x, "Filter": rng.standard_normal((oc, 6, 1, 1)).astype("float32"),
              "Bias": rng.standard_normal(oc).astype("float32")}
    if residual:
        inputs["ResidualData"] = rng.standard_normal((2, 24, 23, oc)).astype("float32")
    attrs = {"data_format": "NHWC", "fuse_activation": act, "fuse_alpha": 0.1}
    want = run_op("fused_conv2d", inputs, attrs)["Output"]
    transposed = np.ascontiguousarray(inputs["Filter"][:, :, 0, 0].T)
    got = run_op("fused_conv2d_pointwise", {**inputs, "Transposed": transposed},
                 attrs)["Output"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert bool(taken) == by_product


def test_fused_conv2d_pointwise_names_a_wrong_transpose():
    from test_cnn_ops import run_op
    x, w = np.zeros((1, 3, 3, 4), "float32"), np.zeros((5, 4, 1, 1), "float32")
    with pytest.raises(ValueError, match=r"Transposed must be the \[C, OC\] transpose of "
                                         r"Filter \[5, 4, 1, 1\].*received \[5, 4\]"):
        run_op("fused_conv2d_pointwise", {"Input": x, "Filter": w,
                                          "Transposed": np.zeros((5, 4), "float32")},
               {"data_format": "NHWC"})
    with pytest.raises(ValueError, match=r"Filter must be \[OC, C, 1, 1\], received "
                                         r"\[5, 4, 3, 3\]"):
        run_op("pointwise_filter_transpose", {"Filter": np.zeros((5, 4, 3, 3), "float32")}, {})
