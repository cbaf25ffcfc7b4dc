"""Padding: pad (constant, every axis) and pad3d (constant, reflect, replicate, circular on the
last three spatial axes, NCDHW or NDHWC)."""
from __future__ import annotations

from .registry import converter

_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


@converter("pad")
def pad(g, n):
    """paddings = [before_0, after_0, before_1, after_1, ...]."""
    paddings = [int(p) for p in n.attr("paddings")]
    pads = paddings[0::2] + paddings[1::2]
    g.op("Pad", n.input("X"), g.ints(pads), g.scalar(n.attr("pad_value"), n.np_dtype("X")),
         mode="constant", outputs=[n.output("Out")])


def _circular(g, x: str, axis: int, before: int, after: int) -> str:
    """Wrap-around padding of one axis: the last ``before`` slices, x, the first ``after``."""
    parts = []
    if before:
        parts.append(g.op("Slice", x, g.ints([-before]), g.ints([2 ** 62]), g.ints([axis])))
    parts.append(x)
    if after:
        parts.append(g.op("Slice", x, g.ints([0]), g.ints([after]), g.ints([axis])))
    return g.op("Concat", *parts, axis=axis) if len(parts) > 1 else x


@converter("pad3d")
def pad3d(g, n):
    """paddings = [left, right, top, bottom, front, back] (W, H, D)."""
    if n.has("Paddings"):
        n.fail("paddings given as a run-time tensor are not supported; give a list of ints")
    left, right, top, bottom, front, back = [int(p) for p in n.attr("paddings")]
    channel_last = n.attr("data_format") == "NDHWC"
    d, h, w = (1, 2, 3) if channel_last else (2, 3, 4)
    before, after = [0] * 5, [0] * 5
    for axis, (b, a) in zip((d, h, w), ((front, back), (top, bottom), (left, right))):
        before[axis], after[axis] = b, a
    x, mode, out = n.input("X"), n.attr("mode"), n.output("Out")
    if mode == "circular":
        for axis in (d, h, w):
            x = _circular(g, x, axis, before[axis], after[axis])
        g.op("Identity", x, outputs=[out])
        return
    if mode not in _MODES:
        n.fail(f"mode {mode!r} is not one of constant, reflect, replicate, circular")
    value = g.scalar(n.attr("value") if mode == "constant" else 0, n.np_dtype("X"))
    g.op("Pad", x, g.ints(before + after), value, mode=_MODES[mode], outputs=[out])
