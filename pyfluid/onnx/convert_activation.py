"""Activations and the softmax family. Where Paddle's formula differs from the ONNX op of the
same name (hard_swish's threshold/scale/offset, gelu before opset 20) the formula is written
out, in the order pyfluid's kernels compute it."""
from __future__ import annotations

import numpy as np

from .registry import converter

_SIMPLE = {"relu": "Relu", "tanh": "Tanh", "sigmoid": "Sigmoid"}


@converter(*_SIMPLE)
def simple(g, n):
    g.op(_SIMPLE[n.type], n.input("X"), outputs=[n.output("Out")])


@converter("softmax", "log_softmax")
def softmax(g, n):
    op_type = "Softmax" if n.type == "softmax" else "LogSoftmax"
    g.op(op_type, n.input("X"), axis=int(n.attr("axis")), outputs=[n.output("Out")])


@converter("relu6")
def relu6(g, n):
    dtype = n.np_dtype("X")
    g.op("Clip", n.input("X"), g.scalar(0, dtype), g.scalar(n.attr("threshold"), dtype),
         outputs=[n.output("Out")])


@converter("leaky_relu")
def leaky_relu(g, n):
    g.op("LeakyRelu", n.input("X"), alpha=float(n.attr("alpha")), outputs=[n.output("Out")])


@converter("elu")
def elu(g, n):
    g.op("Elu", n.input("X"), alpha=float(n.attr("alpha")), outputs=[n.output("Out")])


@converter("hard_sigmoid")
def hard_sigmoid(g, n):
    g.op("HardSigmoid", n.input("X"), alpha=float(n.attr("slope")),
         beta=float(n.attr("offset")), outputs=[n.output("Out")])


@converter("hard_swish")
def hard_swish(g, n):
    """``x * clip(x + offset, 0, threshold) / scale``."""
    x, dtype = n.input("X"), n.np_dtype("X")
    gate = g.op("Clip", g.op("Add", x, g.scalar(n.attr("offset"), dtype)), g.scalar(0, dtype),
                g.scalar(n.attr("threshold"), dtype))
    g.op("Div", g.op("Mul", x, gate), g.scalar(n.attr("scale"), dtype),
         outputs=[n.output("Out")])


@converter("silu", "swish")
def swish(g, n):
    """``x * sigmoid(beta * x)`` (silu: beta = 1)."""
    x = n.input("X")
    beta = n.attr("beta") if n.type == "swish" else 1.0
    inner = x if beta == 1.0 else g.op("Mul", x, g.scalar(beta, n.np_dtype("X")))
    g.op("Mul", x, g.op("Sigmoid", inner), outputs=[n.output("Out")])


@converter("gelu")
def gelu(g, n):
    """Exact: ``0.5 x (1 + erf(x / sqrt 2))``; approximate: the tanh form."""
    x, dtype, out = n.input("X"), n.np_dtype("X"), n.output("Out")
    if g.opset >= 20:
        g.op("Gelu", x, approximate="tanh" if n.attr("approximate") else "none",
             outputs=[out])
        return
    half_x = g.op("Mul", x, g.scalar(0.5, dtype))
    if n.attr("approximate"):
        cube = g.op("Mul", g.op("Mul", x, x), x)
        inner = g.op("Add", x, g.op("Mul", cube, g.scalar(0.044715, dtype)))
        core = g.op("Tanh", g.op("Mul", inner, g.scalar(np.sqrt(2 / np.pi), dtype)))
    else:
        core = g.op("Erf", g.op("Mul", x, g.scalar(np.sqrt(0.5), dtype)))
    g.op("Mul", half_x, g.op("Add", core, g.scalar(1, dtype)), outputs=[out])


@converter("brelu")
def brelu(g, n):
    dtype = n.np_dtype("X")
    g.op("Clip", n.input("X"), g.scalar(n.attr("t_min"), dtype),
         g.scalar(n.attr("t_max"), dtype), outputs=[n.output("Out")])


@converter("celu")
def celu(g, n):
    g.op("Celu", n.input("X"), alpha=float(n.attr("alpha")), outputs=[n.output("Out")])


@converter("selu")
def selu(g, n):
    g.op("Selu", n.input("X"), alpha=float(n.attr("alpha")), gamma=float(n.attr("scale")),
         outputs=[n.output("Out")])


@converter("hard_shrink", "softshrink")
def shrink(g, n):
    """hard_shrink keeps x where |x| > threshold; softshrink also moves it by lambda."""
    lambd = float(n.attr("threshold") if n.type == "hard_shrink" else n.attr("lambda"))
    g.op("Shrink", n.input("X"), lambd=lambd, bias=0.0 if n.type == "hard_shrink" else lambd,
         outputs=[n.output("Out")])


@converter("thresholded_relu")
def thresholded_relu(g, n):
    g.op("ThresholdedRelu", n.input("X"), alpha=float(n.attr("threshold")),
         outputs=[n.output("Out")])


@converter("softsign")
def softsign(g, n):
    g.op("Softsign", n.input("X"), outputs=[n.output("Out")])


@converter("logsigmoid")
def logsigmoid(g, n):
    """``-softplus(-x)``."""
    g.op("Neg", g.op("Softplus", g.op("Neg", n.input("X"))), outputs=[n.output("Out")])


@converter("tanh_shrink")
def tanh_shrink(g, n):
    x = n.input("X")
    g.op("Sub", x, g.op("Tanh", x), outputs=[n.output("Out")])


def _softplus(g, x: str, beta: float, threshold: float, dtype) -> str:
    """Paddle's softplus: ``log(1 + exp(beta x)) / beta``, and x itself past threshold."""
    scaled = x if beta == 1.0 else g.op("Mul", x, g.scalar(beta, dtype))
    smooth = g.op("Softplus", scaled)
    if beta != 1.0:
        smooth = g.op("Div", smooth, g.scalar(beta, dtype))
    return g.op("Where", g.op("Greater", scaled, g.scalar(threshold, dtype)), x, smooth)


@converter("softplus")
def softplus(g, n):
    value = _softplus(g, n.input("X"), float(n.attr("beta")), float(n.attr("threshold")),
                      n.np_dtype("X"))
    g.op("Identity", value, outputs=[n.output("Out")])


@converter("mish")
def mish(g, n):
    """``x tanh(softplus(x))`` with Paddle's softplus threshold."""
    x = n.input("X")
    sp = _softplus(g, x, 1.0, float(n.attr("threshold")), n.np_dtype("X"))
    g.op("Mul", x, g.op("Tanh", sp), outputs=[n.output("Out")])


@converter("prelu")
def prelu(g, n):
    """Alpha per tensor ('all'), per channel or per element, broadcast to X."""
    alpha, rank = n.input("Alpha"), n.rank("X")
    mode = n.attr("mode")
    if mode == "channel" and n.attr("data_format") != "NHWC" and rank > 2:
        alpha = g.reshape(alpha, [-1] + [1] * (rank - 2))
    g.op("PRelu", n.input("X"), alpha, outputs=[n.output("Out")])
