"""Fold an inference ``batch_norm`` into the convolution before it (Paddle's
conv_bn_fuse_pass): ``conv(x, W) [-> elementwise_add(b0)] -> batch_norm`` on running
statistics becomes ``conv(x, W * s) -> elementwise_add(bias + (b0 - mean) * s)`` with
``s = scale / sqrt(variance + epsilon)`` per output channel, which saves the normalization's
passes over the convolution's output.

The folded filter and bias are computed by ordinary ops (scale, sqrt, elementwise_*) from the
parameters alone, placed before the convolution, so the program stays a Paddle program; the
Executor computes such parameter-only values once and again only when a parameter changes
(executor/hoisting.py). Only where that holds: the convolution's filter and the statistics
are persistable, fed by nobody and written by no op (the normalization's own MeanOut/
VarianceOut aside), and the intermediate results are private temporaries.

Folding changes rounding (the filter is scaled before the products, not the result after
them): results agree with the unfolded program to float32 rounding of the convolution, about
1e-6 of the output's magnitude (tests/test_fold_conv_bn.py checks rtol 1e-5, atol 1e-5).
"""
from __future__ import annotations

from ..operator import Operator
from ..program import Program
from .graph import PassContext, Rewriter, drop_unused_vars

CONVS = ("conv2d", "depthwise_conv2d")
_STAT_OUTPUTS = ("SavedMean", "SavedVariance", "ReserveSpace")


def _global_stats(bn: Operator) -> bool:
    attrs = bn.attrs
    return ((attrs.get("is_test", False) and not attrs.get("trainable_statistics", False))
            or attrs.get("use_global_stats", False))


class _Folding:
    """The facts of one foldable conv [+ bias] + batch_norm chain."""

    def __init__(self, rw: Rewriter, bn: Operator):
        self.rw, self.bn = rw, bn
        self.conv = self.bias_add = None
        self.ok = self._match()

    def _writer(self, name: str) -> Operator | None:
        if not self.rw.private_temporary(name):
            return None
        return next((op for op in self.rw.block.ops if name in op.output_arg_names), None)

    def _match(self) -> bool:
        rw, bn = self.rw, self.bn
        if not _global_stats(bn):
            return False
        producer = self._writer(bn.input("X")[0])
        if producer is not None and producer.type == "elementwise_add":
            self.bias_add, producer = producer, self._writer(producer.input("X")[0])
        if producer is None or producer.type not in CONVS:
            return False
        self.conv = producer
        channel_last = producer.attrs.get("data_format", "NCHW") == "NHWC"
        if (bn.attrs.get("data_layout", "NCHW") == "NHWC") != channel_last:
            return False
        filt = rw.var(producer.input("Filter")[0])
        if filt is None or len(filt.shape or ()) != 4 or filt.shape[0] < 1:
            return False
        self.channels, self.axis = filt.shape[0], 3 if channel_last else 1
        if self.bias_add is not None and not self._is_channel_bias(self.bias_add):
            return False
        return self._outputs_free() and all(self._constant(n) for n in self.parameters())

    def _is_channel_bias(self, add: Operator) -> bool:
        bias = self.rw.var(add.input("Y")[0])
        return (bias is not None and tuple(bias.shape or ()) == (self.channels,)
                and add.attrs.get("axis", -1) in (self.axis, -1 if self.axis == 3 else self.axis))

    def _outputs_free(self) -> bool:
        """The statistics outputs are unread temporaries or the statistics themselves."""
        rw, bn = self.rw, self.bn
        for slot in _STAT_OUTPUTS:
            for name in bn.output(slot):
                if name != "@EMPTY@" and (rw.readers[name] or name in rw.ctx.pinned):
                    return False
        for out, src in (("MeanOut", "Mean"), ("VarianceOut", "Variance")):
            for name in bn.output(out):
                if name not in bn.input(src) and (rw.readers[name] or name in rw.ctx.pinned):
                    return False
        return True

    def parameters(self) -> list[str]:
        names = [self.conv.input("Filter")[0]] + [self.bn.input(s)[0] for s in
                                                  ("Scale", "Bias", "Mean", "Variance")]
        return names + ([self.bias_add.input("Y")[0]] if self.bias_add is not None else [])

    def _constant(self, name: str) -> bool:
        """Persistable, not fed, written by no op but this batch_norm (its MeanOut/
        VarianceOut name the statistics themselves)."""
        var = self.rw.var(name)
        own = name in self.bn.output_arg_names
        return (var is not None and var.persistable and name not in self.rw.ctx.pinned
                and self.rw.writers[name] == (1 if own else 0))

    def rewrite(self) -> tuple[list[Operator], Operator, Operator]:
        """(ops computing the folded filter and bias, the new conv, the bias add)."""
        block, bn, conv = self.rw.block, self.bn, self.conv
        y = bn.output("Y")[0]
        filt = conv.input("Filter")[0]
        names = {k: f"{y}@fold_{k}"     # temporaries: the ops create them
                 for k in ("eps", "std", "scale", "filter", "diff", "shift", "bias")}
        (scale, bias, mean, var) = (bn.input(s)[0] for s in ("Scale", "Bias", "Mean", "Variance"))
        make = block._make_op
        ops = [make("scale", {"X": [var]}, {"Out": [names["eps"]]},
                    {"scale": 1.0, "bias": float(bn.attrs.get("epsilon", 1e-5)),
                     "bias_after_scale": True}),
               make("sqrt", {"X": [names["eps"]]}, {"Out": [names["std"]]}, {}),
               make("elementwise_div", {"X": [scale], "Y": [names["std"]]},
                    {"Out": [names["scale"]]}, {"axis": -1}),
               make("elementwise_mul", {"X": [filt], "Y": [names["scale"]]},
                    {"Out": [names["filter"]]}, {"axis": 0})]
        if self.bias_add is None:        # bias - mean * s
            ops += [make("elementwise_mul", {"X": [mean], "Y": [names["scale"]]},
                         {"Out": [names["shift"]]}, {"axis": -1}),
                    make("elementwise_sub", {"X": [bias], "Y": [names["shift"]]},
                         {"Out": [names["bias"]]}, {"axis": -1})]
        else:                            # bias + (b0 - mean) * s
            b0 = self.bias_add.input("Y")[0]
            ops += [make("elementwise_sub", {"X": [b0], "Y": [mean]}, {"Out": [names["diff"]]},
                         {"axis": -1}),
                    make("elementwise_mul", {"X": [names["diff"]], "Y": [names["scale"]]},
                         {"Out": [names["shift"]]}, {"axis": -1}),
                    make("elementwise_add", {"X": [bias], "Y": [names["shift"]]},
                         {"Out": [names["bias"]]}, {"axis": -1})]
        out = conv.output("Output")[0]
        new_conv = make(conv.type, {"Input": conv.input("Input"), "Filter": [names["filter"]]},
                        {"Output": [out]}, dict(conv.attrs))
        add = make("elementwise_add", {"X": [out], "Y": [names["bias"]]}, {"Out": [y]},
                   {"axis": self.axis})
        for op in ops + [new_conv, add]:
            op.site = bn.site
        return ops, new_conv, add


def fold_conv_bn(program: Program, ctx: PassContext) -> bool:
    rw = Rewriter(program, ctx)
    block = rw.block
    foldings = [f for op in block.ops if op.type == "batch_norm"
                for f in [_Folding(rw, op)] if f.ok]
    if not foldings:
        return False
    before, replace, removed, dropped = {}, {}, set(), set()
    for f in foldings:
        ops, new_conv, add = f.rewrite()
        before[id(f.conv)] = ops
        replace[id(f.conv)], replace[id(f.bn)] = new_conv, add
        if f.bias_add is not None:
            removed.add(id(f.bias_add))
            dropped.update(f.bias_add.output_arg_names)
        dropped.update(n for s in _STAT_OUTPUTS for n in f.bn.output(s))
    new_ops = []
    for op in block.ops:
        if id(op) in removed:
            continue
        new_ops += before.get(id(op), [])
        new_ops.append(replace.get(id(op), op))
    block.ops = new_ops
    drop_unused_vars(program, dropped)
    program._link_producers()
    program._bump()
    return True
