"""ONNX export of the inference passes' ops (fused_conv2d, winograd_filter,
fused_conv2d_winograd): a program optimized by the passes runs in onnxruntime with pyfluid's
outputs (the converters write the plain convolution; Winograd's rounding is within 1e-4)."""
from __future__ import annotations

import numpy as np

from onnx_check import run_both
from test_inference_passes import build, strategy

import pyfluid as paddle
from pyfluid import static
from pyfluid.framework.passes import apply_passes


def test_a_folded_fused_winograd_program_exports_to_onnx():
    paddle.enable_static()
    main, startup, test, logits, loss = build(batch_size=None)
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    optimized = apply_passes(test, strategy(), ("x",), (logits.name,))
    types = {op.type for op in optimized.global_block().ops}
    assert {"fused_conv2d", "fused_conv2d_winograd", "winograd_filter"} <= types
    x = np.random.default_rng(0).standard_normal((2, 3, 12, 12)).astype("float32")
    run_both(optimized, {"x": x}, [logits.name], scope=scope, rtol=1e-4, atol=1e-4)


def test_a_channel_last_program_with_transposed_pointwise_filters_exports_to_onnx():
    from test_channel_last_pass import build as build_channel_last
    paddle.enable_static()
    test, startup, names = build_channel_last()
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    optimized = apply_passes(test, strategy(), ("x",), (names["logits"],))
    types = {op.type for op in optimized.global_block().ops}
    assert {"fused_conv2d_pointwise", "pointwise_filter_transpose"} <= types
    x = np.random.default_rng(1).standard_normal((2, 3, 32, 32)).astype("float32")
    run_both(optimized, {"x": x}, [names["logits"]], scope=scope, rtol=1e-4, atol=1e-4)
