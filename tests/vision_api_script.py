"""One static-mode program using every vision API (functional and layers), built identically
by Paddle 2.6.2 (tools/paddle_references/record_vision_api_26.py records its ops, variables and the functional
outputs) and by pyfluid (tests/test_vision_api.py compares). ``paddle`` is passed in, so this
module imports neither framework."""
import numpy as np

FEED_SHAPES = {"x": [2, 4, 6, 8], "x3": [2, 4, 7], "x5": [2, 2, 3, 4, 5], "w_t": [4, 3, 3, 3],
               "w_3d": [3, 2, 2, 2, 2], "b3": [3], "alpha": [4], "sz": [2], "sc": [1]}


def feeds() -> dict:
    rng = np.random.default_rng(77)
    out = {k: rng.standard_normal(s).astype("float32") for k, s in FEED_SHAPES.items()}
    out["sz"] = np.array([5, 9], "int32")
    out["sc"] = np.array([1.5], "float32")
    return out


def functional_outputs(paddle, data: dict, static: bool = True) -> list:
    """Every functional API on the inputs ``data`` (static variables or eager Tensors)."""
    F = paddle.nn.functional
    x, x3, x5 = data["x"], data["x3"], data["x5"]
    return [
        F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
        F.interpolate(x, size=[5, 11], mode="nearest"),
        F.interpolate(x, size=data["sz"], mode="bilinear"),
        F.interpolate(x, scale_factor=data["sc"] if static else paddle.reshape(data["sc"], []),
                      mode="nearest"),          # eagerly Paddle takes a 0-D scale Tensor only
        F.interpolate(x, scale_factor=[1.5, 0.5], mode="bicubic", align_corners=False),
        F.upsample(x, scale_factor=2, mode="bilinear", align_mode=1),
        F.interpolate(x3, size=[12], mode="linear", data_format="NCW"),
        F.interpolate(x5, scale_factor=[1.0, 2.0, 1.5], mode="trilinear", data_format="NCDHW"),
        F.conv2d_transpose(x, data["w_t"], stride=2, padding=1, output_padding=1),
        F.conv2d_transpose(x, data["w_t"], data["b3"], stride=2, output_size=[14, 18]),
        F.conv3d(x5, data["w_3d"], data["b3"], padding=1, stride=[1, 2, 2]),
        F.instance_norm(x),
        F.prelu(x, data["alpha"]),
        F.pad(x, [0, 0, 0, 1, 1, 2, 2, 3], value=0.5),
        F.pad(x, [1, 2, 0, 1], mode="reflect"),
        F.pad(x3, [2, 1], mode="replicate", data_format="NCL"),
        F.pad(x5, [1, 1, 0, 1, 1, 0], mode="circular", data_format="NCDHW"),
        F.zeropad2d(x, [1, 0, 2, 1]),
        *F.max_pool2d(x, 2, return_mask=True),
        *F.adaptive_max_pool2d(x, [4, 3], return_mask=True),
        F.adaptive_max_pool2d(x, 3),
        F.hardtanh(x, -0.5, 0.7), F.celu(x, 0.8), F.hardshrink(x, 0.3), F.log_sigmoid(x),
        F.mish(x), F.selu(x), F.softplus(x, 2.0, 5.0), F.softshrink(x, 0.2), F.softsign(x),
        F.tanhshrink(x), F.thresholded_relu(x, 0.4),
    ]


def build(paddle):
    """The static program: the functional outputs (returned, to fetch) then every layer (their
    outputs depend on random weights)."""
    nn = paddle.nn
    data = {k: paddle.static.data(k, s, "int32" if k == "sz" else "float32")
            for k, s in FEED_SHAPES.items()}
    x, x3, x5 = data["x"], data["x3"], data["x5"]
    outs = functional_outputs(paddle, data)
    layers = [nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1),
              nn.Conv2DTranspose(4, 4, 3, stride=2, groups=4, padding="SAME"),
              nn.Conv3D(2, 3, 3, padding=1), nn.GroupNorm(2, 4), nn.InstanceNorm2D(4),
              nn.PReLU(4, 0.2), nn.PReLU(), nn.Upsample(scale_factor=2),
              nn.UpsamplingBilinear2D(scale_factor=2), nn.UpsamplingNearest2D(size=[3, 4]),
              nn.Pad2D([1, 2, 1, 1]), nn.ZeroPad2D(1), nn.MaxPool2D(2, return_mask=True),
              nn.AdaptiveMaxPool2D(3, return_mask=True), nn.Hardtanh(), nn.CELU(),
              nn.Hardshrink(), nn.LogSigmoid(), nn.Mish(), nn.SELU(), nn.Softplus(),
              nn.Softshrink(), nn.Softsign(), nn.Tanhshrink(), nn.ThresholdedReLU()]
    for layer in layers:
        layer(x5 if isinstance(layer, nn.Conv3D) else x)
    nn.Conv2D(4, 2, 3, padding=1, padding_mode="reflect")(x)
    nn.Conv3D(2, 2, 3, padding=1, padding_mode="circular")(x5)
    nn.Pad1D([1, 2], mode="replicate")(x3)
    nn.InstanceNorm1D(4)(x3)
    nn.Pad3D(1, mode="circular")(x5)
    nn.InstanceNorm3D(2)(x5)
    return outs
