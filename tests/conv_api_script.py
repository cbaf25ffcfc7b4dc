"""One static-mode program using conv1d, conv1d_transpose and conv3d_transpose (functional and
layers: both layouts, groups, dilations, strides, padding forms and modes, output_padding and
output_size), built identically by Paddle 2.6.2 (tools/paddle_references/record_vision_api_26.py
conv_api_script records its ops, variables and the functional outputs) and by pyfluid
(tests/test_conv_api.py compares). ``paddle`` is passed in, so this module imports neither
framework."""
import numpy as np

FEED_SHAPES = {"x": [2, 4, 9], "xl": [2, 9, 4], "x5": [2, 4, 3, 4, 5], "x5l": [2, 3, 4, 5, 4],
               "w1": [6, 2, 3], "w1d": [4, 1, 3], "w1t": [4, 3, 3], "w1td": [4, 1, 2],
               "w3t": [4, 3, 3, 2, 3], "w3td": [4, 1, 2, 2, 2], "b6": [6], "b4": [4]}


def feeds() -> dict:
    rng = np.random.default_rng(31)
    return {k: rng.standard_normal(s).astype("float32") for k, s in FEED_SHAPES.items()}


def functional_outputs(paddle, data: dict) -> list:
    """Every functional case on the inputs ``data`` (static variables or eager Tensors)."""
    F = paddle.nn.functional
    x, xl, x5, x5l = data["x"], data["xl"], data["x5"], data["x5l"]
    return [
        F.conv1d(x, data["w1"], data["b6"], stride=2, padding=1, groups=2),
        F.conv1d(xl, data["w1d"], data["b4"], padding="same", groups=4, data_format="NLC"),
        F.conv1d(x, data["w1"], None, padding=[1, 2], dilation=2, groups=2),
        F.conv1d(xl, data["w1d"], data["b4"], stride=3, padding="valid", groups=4,
                 data_format="NLC"),
        F.conv1d(x, data["w1"], data["b6"], padding=[[0, 0], [0, 0], [2, 1]], groups=2),
        F.conv1d_transpose(x, data["w1t"], data["b6"], stride=2, padding=1, output_padding=1,
                           groups=2),
        F.conv1d_transpose(xl, data["w1t"], None, stride=2, output_size=20, groups=1,
                           data_format="NLC"),
        F.conv1d_transpose(x, data["w1td"], data["b4"], stride=3, padding=[1, 0], dilation=2,
                           groups=4),
        F.conv1d_transpose(xl, data["w1t"], data["b6"], padding="same", groups=2,
                           data_format="NLC"),
        F.conv3d_transpose(x5, data["w3t"], data["b6"], stride=2, padding=1,
                           output_padding=1, groups=2),
        F.conv3d_transpose(x5, data["w3t"], None, stride=[2, 1, 2], output_size=[8, 5, 12],
                           groups=2),
        F.conv3d_transpose(x5l, data["w3td"], data["b4"], stride=[1, 2, 1],
                           padding=[1, 0, 0, 1, 0, 1], dilation=[2, 1, 1], groups=4,
                           data_format="NDHWC"),
        F.conv3d_transpose(x5l, data["w3t"], data["b6"], padding="same", stride=2, groups=2,
                           data_format="NDHWC"),
    ]


def build(paddle):
    """The static program: the functional outputs (returned, to fetch) then every layer (their
    outputs depend on random weights)."""
    nn = paddle.nn
    data = {k: paddle.static.data(k, s, "float32") for k, s in FEED_SHAPES.items()}
    x, xl, x5 = data["x"], data["xl"], data["x5"]
    outs = functional_outputs(paddle, data)
    nn.Conv1D(4, 6, 3, stride=2, padding=1, groups=2)(x)
    nn.Conv1D(4, 4, 3, groups=4, padding="same", data_format="NLC")(xl)
    nn.Conv1D(4, 6, 3, padding=1, padding_mode="reflect")(x)
    nn.Conv1D(4, 2, 2, padding=2, padding_mode="circular", data_format="NLC", bias_attr=False)(xl)
    nn.Conv1DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)(x)
    nn.Conv1DTranspose(4, 4, 3, groups=4, dilation=2, data_format="NLC")(xl)
    nn.Conv3DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)(x5)
    nn.Conv3DTranspose(4, 2, [1, 2, 3], stride=2, bias_attr=False)(x5, output_size=[5, 8, 11])
    return outs
