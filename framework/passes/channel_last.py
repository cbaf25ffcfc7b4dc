"""Run depthwise networks (MobileNet, ShuffleNet) channel last (NHWC) from their first
depthwise convolution on, as oneDNN runs its blocked layouts: there a depthwise convolution is
one ``einsum`` pass over the channels instead of two NumPy passes per tap, and pointwise
convolutions are one product over every position of the batch (ops/depthwise.py,
ops/conv_kernels.py).

A ``fused_conv2d`` whose kernel reads channel-last inputs natively (pointwise, or one filter
per channel) switches to ``data_format="NHWC"`` when its input is already channel last, and a
depthwise one also starts a channel-last region where that pays by itself: 32 channels or
more on output maps of at most 112 x 112. The convolution that makes such a region's input
joins it if its kernel writes NHWC outputs directly (MobileNetV2's stem: no transpose between
the two). Measured on MobileNetV2 at 224: its 112 x 112 and 56 x 56 depthwise layers run
10-45% faster NHWC (most at batch 8, where the NCHW taps stream their planes from memory), its
pointwise layers there within -30%..+30%; the network, 8 x 224: 130 -> 121 ms, 1 x 224
unchanged. ``pool2d`` follows its input. A converted op writes
``<name>@NHWC``; the NCHW ``<name>`` is made by a ``transpose2`` (a view) right before the
first op that reads it in NCHW, the region's end, and only if something reads it (a fetched
name is always made). Results agree with the NCHW program to rounding: the taps are summed
in one einsum, and by column phase for strided layers.
"""
from __future__ import annotations

from ...ops.conv_kernels import conv_kernel, geometry
from ..program import Program
from .graph import PassContext, usage

TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]
START_CHANNELS = 32           # a depthwise convolution starts a region from this many channels
START_POSITIONS = 112 * 112   # ... on output maps of at most this many positions
_IO = {"fused_conv2d": (("Input", "ResidualData"), "Output", "data_format"),
       "pool2d": (("X",), "Out", "data_format")}


def _kernel(block, op):
    """The kernel object ``op``'s convolution runs for one image, or None if unknown."""
    x = block._find_var_recursive(op.input("Input")[0])
    f = block._find_var_recursive(op.input("Filter")[0])
    if x is None or f is None or len(x.shape or ()) != 4 or len(f.shape or ()) != 4:
        return None
    shape = (1, *x.shape[1:])
    if min(shape) <= 0 or min(f.shape) <= 0:
        return None
    a = op.attrs
    try:
        return conv_kernel(geometry(op.type, shape, tuple(f.shape), tuple(a["strides"]),
                                    tuple(a["paddings"]), a["padding_algorithm"],
                                    tuple(a["dilations"]), a["groups"]))
    except ValueError:
        return None


def _starts_region(kernel) -> bool:
    g = kernel.geo
    return (g.groups == g.c == g.oc and g.c >= START_CHANNELS
            and g.positions <= START_POSITIONS)


def _nchw(op) -> bool:
    return op.type in _IO and op.attrs.get(_IO[op.type][2], "NCHW") == "NCHW"


def _stems(block) -> set[int]:
    """The convolutions (ids) whose output starts a region and whose kernel writes NHWC
    outputs itself: they join the region, and its first transpose is never made."""
    writer = {name: op for op in block.ops for name in op.output_arg_names}
    found = set()
    for op in block.ops:
        if op.type != "fused_conv2d" or not _nchw(op):
            continue
        kernel = _kernel(block, op)
        stem = writer.get(op.input("Input")[0])
        if (kernel is not None and kernel.channel_last_native and _starts_region(kernel)
                and stem is not None and stem.type == "fused_conv2d" and _nchw(stem)
                and getattr(_kernel(block, stem), "writes_channel_last", False)):
            found.add(id(stem))
    return found


def _converts(block, op, twins: dict, once, stems: set) -> bool:
    if not _nchw(op):
        return False
    inputs, output = _IO[op.type][:2]
    out = op.output(output)
    if len(out) != 1 or not once(out[0]) or len(op.input(inputs[0])) != 1:
        return False
    follows = op.input(inputs[0])[0] in twins
    if op.type == "pool2d":
        return follows
    if id(op) in stems:
        return True
    kernel = _kernel(block, op)
    return kernel is not None and kernel.channel_last_native and (
        follows or _starts_region(kernel))


def channel_last(program: Program, ctx: PassContext) -> bool:
    if len(program.blocks) > 1:          # sub-blocks would read the NCHW names
        return False
    block = program.global_block()
    writers = usage(program)[1]

    def once(name):
        var = block.vars.get(name)
        return (var is not None and not var.persistable and writers[name] == 1
                and name not in ctx.feed_names)

    twins: dict[str, str] = {}     # NCHW name -> its NHWC twin
    pending: set[str] = set()      # NCHW names not yet made from their twin
    new_ops = []
    stems = _stems(block)

    def transposed(src: str, dst: str, axis: list, like) -> None:
        shape = None if like.shape is None else [like.shape[a] for a in axis]
        if dst not in block.vars:
            block.create_var(name=dst, shape=shape, dtype=like.dtype)
        new_ops.append(block._make_op("transpose2", {"X": [src]}, {"Out": [dst]},
                                      {"axis": axis}))

    for op in block.ops:
        if not _converts(block, op, twins, once, stems):
            for name in [n for n in dict.fromkeys(op.input_arg_names) if n in pending]:
                transposed(twins[name], name, TO_NCHW, block.vars[twins[name]])
                pending.discard(name)
            new_ops.append(op)
            continue
        inputs, output, layout = _IO[op.type]
        slots = {slot: list(names) for slot, names in op.inputs.items()}
        for slot in inputs:
            for i, name in enumerate(slots.get(slot, [])):
                if name not in twins:
                    twins[name] = f"{name}@NHWC"
                    transposed(name, twins[name], TO_NHWC, block._find_var_recursive(name))
                slots[slot][i] = twins[name]
        name = op.output(output)[0]
        twins[name] = f"{name}@NHWC"
        pending.add(name)
        var = block.vars[name]
        block.create_var(name=twins[name], dtype=var.dtype, shape=None if var.shape is None
                         else [var.shape[a] for a in TO_NHWC])
        new = block._make_op(op.type, slots, {**op.outputs, output: [twins[name]]},
                             {**op.attrs, layout: "NHWC"})
        new.site = op.site
        new.fused_from = getattr(op, "fused_from", None)
        new_ops.append(new)
    for name in [n for n in ctx.fetch_names if n in pending]:
        transposed(twins[name], name, TO_NCHW, block.vars[twins[name]])
    if not twins:
        return False
    block.ops = new_ops
    program._link_producers()
    program._bump()
    return True
