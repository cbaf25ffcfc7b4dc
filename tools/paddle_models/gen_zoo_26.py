#!/usr/bin/env python
"""Generate a corpus of Paddle 2.6 inference models with recorded inputs/outputs.

Usage::

    PYTHON_WITH_PADDLE_2_6 gen_zoo_26.py --out DIR [--large] [--only NAME[,NAME...]] [--list]

For every model NAME this writes, into DIR:

* ``NAME.pdmodel`` + ``NAME.pdiparams``  -- written by ``paddle.jit.save`` of a
  ``paddle.nn.Layer`` with ``InputSpec``s (dynamic batch / sequence dims are ``None``);
* ``NAME.io.npz`` -- the fed inputs ``x0, x1, ...`` (in the feed order of the saved
  program) and Paddle's outputs ``y0, y1, ...`` (in its fetch order).  The outputs are
  computed by loading the saved files back with ``paddle.static.load_inference_model``
  and running them with a ``paddle.static.Executor`` on CPU, so they are exactly the
  outputs of the saved model;

and a ``manifest.json`` describing every model (file sizes, the set of op types in all
blocks of its program, feed names/shapes/dtypes, fetch names/shapes, "large" flag).
The manifest is merged with an existing one, so runs with ``--only`` add to it.

Models:

* every model of ``paddle.vision.models`` (``num_classes=10`` where allowed).  Those
  with more than ~20 MB of parameters are "large" and only produced with ``--large``;
* ``nn.TransformerEncoder``/``TransformerDecoder``/``nn.Transformer`` (small dims);
* ``nn.LSTM``/``nn.GRU``/``nn.SimpleRNN`` (2 layers; forward and bidirectional; with
  and without a ``sequence_length`` input; tanh and relu for SimpleRNN);
* small BERT-like and GPT-like blocks with dynamic sequence length;
* a small UNet and an interpolation mix (Conv2DTranspose, bilinear/nearest/bicubic,
  align_corners True/False, scale_factor vs size, concat);
* op-mix networks (norms, PReLU, padding, max-pool with index, indexing ops, bmm,
  einsum, unary math, size, gather with a Tensor axis, arange with Tensor bounds,
  and many activations).

Everything is deterministic: each model seeds Paddle and NumPy from a CRC of its own
name (so a model does not depend on which other models were generated), weights are
random (no pretrained weights are downloaded), and batch-norm running statistics are
randomised so that normalisation layers are really exercised.
"""
import argparse
import json
import os
import sys

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec
from pdmodel_files import op_types_of, seed_for, strip_callstacks

LARGE_PARAM_BYTES = 20 * 1024 * 1024  # "large" threshold (~20 MB of parameters)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------
def randomize_norm_stats(layer, rng):
    """Give every batch-norm-like layer non-trivial running statistics and affine."""
    for sub in layer.sublayers(include_self=True):
        if isinstance(sub, (nn.BatchNorm1D, nn.BatchNorm2D, nn.BatchNorm3D, nn.BatchNorm)):
            mean = getattr(sub, "_mean", None)
            var = getattr(sub, "_variance", None)
            if mean is not None:
                mean.set_value(rng.uniform(-0.1, 0.1, mean.shape).astype("float32"))
            if var is not None:
                var.set_value(rng.uniform(0.5, 1.5, var.shape).astype("float32"))
            w = getattr(sub, "weight", None)
            b = getattr(sub, "bias", None)
            if w is not None:
                w.set_value(rng.uniform(0.8, 1.2, w.shape).astype("float32"))
            if b is not None:
                b.set_value(rng.uniform(-0.1, 0.1, b.shape).astype("float32"))


def run_saved(prefix, feed_arrays):
    """Load prefix.pdmodel/.pdiparams in static mode and run it on CPU.

    feed_arrays: dict feed-name -> ndarray.  Returns (feed_names, fetch_names,
    fetch_shapes, outputs)."""
    paddle.enable_static()
    try:
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(paddle.CPUPlace())
            prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
            missing = [n for n in feeds if n not in feed_arrays]
            if missing:
                raise KeyError("no input given for feeds %s" % missing)
            outs = exe.run(prog, feed={n: feed_arrays[n] for n in feeds},
                           fetch_list=fetches, return_numpy=True)
            fetch_names = [v.name for v in fetches]
            fetch_shapes = [list(v.shape) for v in fetches]
        return list(feeds), fetch_names, fetch_shapes, [np.asarray(o) for o in outs]
    finally:
        paddle.disable_static()


def export(out_dir, name, layer, specs, inputs, large=False, note=None):
    """jit.save `layer` with `specs`, reload it, run it on `inputs` and record it all.

    inputs: list of ndarrays, one per InputSpec (same order).  Returns a manifest entry."""
    prefix = os.path.join(out_dir, name)
    layer.eval()
    paddle.jit.save(layer, prefix, input_spec=specs)
    info = prefix + ".pdiparams.info"
    if os.path.exists(info):
        os.remove(info)
    strip_callstacks(prefix + ".pdmodel")
    by_name = {s.name: a for s, a in zip(specs, inputs)}
    feeds, fetch_names, fetch_shapes, outs = run_saved(prefix, by_name)
    npz = {}
    for i, n in enumerate(feeds):
        npz["x%d" % i] = by_name[n]
    for j, o in enumerate(outs):
        npz["y%d" % j] = o
    np.savez_compressed(prefix + ".io.npz", **npz)
    ops, nblocks = op_types_of(prefix + ".pdmodel")
    files = {}
    for ext in (".pdmodel", ".pdiparams", ".io.npz"):
        p = prefix + ext
        if os.path.exists(p):
            files[name + ext] = os.path.getsize(p)
    spec_by_name = {s.name: s for s in specs}
    entry = {
        "large": bool(large),
        "files": files,
        "total_bytes": sum(files.values()),
        "num_blocks": nblocks,
        "op_types": ops,
        "feeds": [{"name": n, "spec_shape": list(spec_by_name[n].shape),
                   "dtype": str(by_name[n].dtype), "fed_shape": list(by_name[n].shape)}
                  for n in feeds],
        "fetches": [{"name": fn, "shape": fs, "dtype": str(o.dtype), "out_shape": list(o.shape)}
                    for fn, fs, o in zip(fetch_names, fetch_shapes, outs)],
        "finite": bool(all(np.all(np.isfinite(o)) for o in outs if o.dtype.kind == "f")),
    }
    if note:
        entry["note"] = note
    return entry


def fspec(shape, name, dtype="float32"):
    return InputSpec(shape, dtype, name)


# --------------------------------------------------------------------------------------
# vision models
# --------------------------------------------------------------------------------------
def _vision(fn_name, size=64, large=False, **kw):
    def build(rng):
        import paddle.vision.models as M

        kwargs = dict(kw)
        if fn_name != "lenet":
            kwargs.setdefault("num_classes", 10)
            model = getattr(M, fn_name)(**kwargs)
            chans = 3
        else:
            model = M.LeNet(num_classes=10)
            chans = 1
        randomize_norm_stats(model, rng)
        x = rng.standard_normal((2, chans, size, size)).astype("float32")
        return model, [fspec([None, chans, size, size], "image")], [x]

    return build, large


VISION = {
    "lenet": _vision("lenet", size=28),
    "alexnet": _vision("alexnet", size=224, large=True),
    "resnet18": _vision("resnet18", large=True),
    "resnet34": _vision("resnet34", large=True),
    "resnet50": _vision("resnet50", large=True),
    "resnet101": _vision("resnet101", large=True),
    "resnet152": _vision("resnet152", large=True),
    "resnext50_32x4d": _vision("resnext50_32x4d", large=True),
    "resnext50_64x4d": _vision("resnext50_64x4d", large=True),
    "resnext101_32x4d": _vision("resnext101_32x4d", large=True),
    "resnext101_64x4d": _vision("resnext101_64x4d", large=True),
    "resnext152_32x4d": _vision("resnext152_32x4d", large=True),
    "resnext152_64x4d": _vision("resnext152_64x4d", large=True),
    "wide_resnet50_2": _vision("wide_resnet50_2", large=True),
    "wide_resnet101_2": _vision("wide_resnet101_2", large=True),
    "vgg11": _vision("vgg11", large=True),
    "vgg11_bn": _vision("vgg11", large=True, batch_norm=True),
    "vgg13": _vision("vgg13", large=True),
    "vgg13_bn": _vision("vgg13", large=True, batch_norm=True),
    "vgg16": _vision("vgg16", large=True),
    "vgg16_bn": _vision("vgg16", large=True, batch_norm=True),
    "vgg19": _vision("vgg19", large=True),
    "vgg19_bn": _vision("vgg19", large=True, batch_norm=True),
    "mobilenet_v1": _vision("mobilenet_v1"),
    "mobilenet_v2": _vision("mobilenet_v2"),
    "mobilenet_v3_small": _vision("mobilenet_v3_small"),
    "mobilenet_v3_large": _vision("mobilenet_v3_large"),
    "shufflenet_v2_x0_25": _vision("shufflenet_v2_x0_25"),
    "shufflenet_v2_x0_33": _vision("shufflenet_v2_x0_33"),
    "shufflenet_v2_x0_5": _vision("shufflenet_v2_x0_5"),
    "shufflenet_v2_x1_0": _vision("shufflenet_v2_x1_0"),
    "shufflenet_v2_x1_5": _vision("shufflenet_v2_x1_5"),
    "shufflenet_v2_x2_0": _vision("shufflenet_v2_x2_0", large=True),
    "shufflenet_v2_swish": _vision("shufflenet_v2_swish"),
    "squeezenet1_0": _vision("squeezenet1_0"),
    "squeezenet1_1": _vision("squeezenet1_1"),
    "densenet121": _vision("densenet121", large=True),
    "densenet161": _vision("densenet161", large=True),
    "densenet169": _vision("densenet169", large=True),
    "densenet201": _vision("densenet201", large=True),
    "densenet264": _vision("densenet264", large=True),
    "googlenet": _vision("googlenet", size=224, large=True),
    # (at 64x64 a conv of the Inception-E stem gets a 0-sized output, which Paddle
    # accepts; use the native 299x299)
    "inception_v3": _vision("inception_v3", size=299, large=True),
}


# --------------------------------------------------------------------------------------
# transformers
# --------------------------------------------------------------------------------------
D_MODEL, N_HEAD, D_FF = 32, 4, 64


class EncoderNet(nn.Layer):
    def __init__(self, with_mask, normalize_before):
        super().__init__()
        layer = nn.TransformerEncoderLayer(D_MODEL, N_HEAD, D_FF, dropout=0.0,
                                           activation="gelu" if normalize_before else "relu",
                                           normalize_before=normalize_before)
        self.enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D_MODEL))
        self.with_mask = with_mask

    def forward(self, src, src_mask=None):
        return self.enc(src, src_mask if self.with_mask else None)


class DecoderNet(nn.Layer):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(D_MODEL, N_HEAD, D_FF, dropout=0.0)
        self.dec = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(D_MODEL))

    def forward(self, tgt, memory):
        length = paddle.shape(tgt)[1]
        # causal mask built from the dynamic target length
        mask = paddle.triu(paddle.full([length, length], -1e9, "float32"), 1)
        return self.dec(tgt, memory, tgt_mask=mask)


class TransformerNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.tr = nn.Transformer(D_MODEL, N_HEAD, 2, 2, D_FF, dropout=0.0)

    def forward(self, src, tgt):
        length = paddle.shape(tgt)[1]
        mask = paddle.triu(paddle.full([length, length], -1e9, "float32"), 1)
        return self.tr(src, tgt, tgt_mask=mask)


def _encoder(with_mask, normalize_before):
    def build(rng):
        m = EncoderNet(with_mask, normalize_before)
        specs = [fspec([None, None, D_MODEL], "src")]
        x = rng.standard_normal((2, 7, D_MODEL)).astype("float32")
        inputs = [x]
        if with_mask:
            specs.append(fspec([None, N_HEAD, None, None], "src_mask"))
            mask = np.zeros((2, N_HEAD, 7, 7), "float32")
            mask[1, :, :, 5:] = -1e9  # second sample: last two positions padded
            inputs.append(mask)
        return m, specs, inputs
    return build, False


def _decoder(rng):
    m = DecoderNet()
    specs = [fspec([None, None, D_MODEL], "tgt"), fspec([None, None, D_MODEL], "memory")]
    return m, specs, [rng.standard_normal((2, 5, D_MODEL)).astype("float32"),
                      rng.standard_normal((2, 6, D_MODEL)).astype("float32")]


def _transformer(rng):
    m = TransformerNet()
    specs = [fspec([None, None, D_MODEL], "src"), fspec([None, None, D_MODEL], "tgt")]
    return m, specs, [rng.standard_normal((2, 6, D_MODEL)).astype("float32"),
                      rng.standard_normal((2, 5, D_MODEL)).astype("float32")]


# --------------------------------------------------------------------------------------
# recurrent networks
# --------------------------------------------------------------------------------------
RNN_IN, RNN_HID, RNN_T = 8, 16, 6


class RNNNet(nn.Layer):
    def __init__(self, kind, bidirectional, with_len, activation="tanh"):
        super().__init__()
        direction = "bidirect" if bidirectional else "forward"
        if kind == "lstm":
            self.rnn = nn.LSTM(RNN_IN, RNN_HID, num_layers=2, direction=direction)
        elif kind == "gru":
            self.rnn = nn.GRU(RNN_IN, RNN_HID, num_layers=2, direction=direction)
        else:
            self.rnn = nn.SimpleRNN(RNN_IN, RNN_HID, num_layers=2, direction=direction,
                                    activation=activation)
        self.kind = kind
        self.with_len = with_len

    def forward(self, x, seq_len=None):
        if self.with_len:
            out, state = self.rnn(x, sequence_length=seq_len)
        else:
            out, state = self.rnn(x)
        if self.kind == "lstm":
            h, c = state
            return out, h, c
        return out, state


def _rnn(kind, bidirectional, with_len, activation="tanh"):
    def build(rng):
        m = RNNNet(kind, bidirectional, with_len, activation)
        specs = [fspec([None, None, RNN_IN], "x")]
        inputs = [rng.standard_normal((2, RNN_T, RNN_IN)).astype("float32")]
        if with_len:
            specs.append(fspec([None], "seq_len", "int64"))
            inputs.append(np.array([RNN_T, 3], "int64"))
        return m, specs, inputs
    return build, False


# --------------------------------------------------------------------------------------
# BERT-like and GPT-like blocks
# --------------------------------------------------------------------------------------
VOCAB, MAX_POS, HID, HEADS = 50, 32, 32, 4


class SelfAttention(nn.Layer):
    def __init__(self, hidden, heads):
        super().__init__()
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.heads = heads
        self.head_dim = hidden // heads

    def forward(self, x, bias):
        # x: [B, L, H]; bias broadcastable to [B, heads, L, L]
        qkv = self.qkv(x)
        qkv = paddle.reshape(qkv, [0, 0, 3, self.heads, self.head_dim])
        qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = paddle.matmul(q, k, transpose_y=True) * (self.head_dim ** -0.5)
        probs = F.softmax(scores + bias, axis=-1)
        ctx = paddle.matmul(probs, v)
        ctx = paddle.transpose(ctx, [0, 2, 1, 3])
        ctx = paddle.reshape(ctx, [0, 0, self.heads * self.head_dim])
        return self.proj(ctx)


class Block(nn.Layer):
    def __init__(self, hidden, heads, pre_norm, approximate):
        super().__init__()
        self.attn = SelfAttention(hidden, heads)
        self.ln1 = nn.LayerNorm(hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, 4 * hidden)
        self.fc2 = nn.Linear(4 * hidden, hidden)
        self.pre_norm = pre_norm
        self.approximate = approximate

    def ffn(self, x):
        return self.fc2(F.gelu(self.fc1(x), approximate=self.approximate))

    def forward(self, x, bias):
        if self.pre_norm:  # GPT style
            x = x + self.attn(self.ln1(x), bias)
            return x + self.ffn(self.ln2(x))
        x = self.ln1(x + self.attn(x, bias))  # BERT style
        return self.ln2(x + self.ffn(x))


class BertLike(nn.Layer):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(VOCAB, HID)
        self.pos = nn.Embedding(MAX_POS, HID)
        self.type = nn.Embedding(2, HID)
        self.ln = nn.LayerNorm(HID)
        self.blocks = nn.LayerList([Block(HID, HEADS, False, False) for _ in range(2)])
        self.pool = nn.Linear(HID, HID)

    def forward(self, input_ids, token_type_ids, attention_mask):
        length = paddle.shape(input_ids)[1]
        pos_ids = paddle.arange(0, length, dtype="int64").unsqueeze(0)
        h = self.word(input_ids) + self.pos(pos_ids) + self.type(token_type_ids)
        h = self.ln(h)
        # attention_mask: [B, L] float 1 = keep, 0 = pad
        bias = (1.0 - attention_mask.unsqueeze([1, 2])) * -10000.0
        for blk in self.blocks:
            h = blk(h, bias)
        pooled = paddle.tanh(self.pool(h[:, 0]))
        return h, pooled


class GptLike(nn.Layer):
    def __init__(self, use_triu):
        super().__init__()
        self.word = nn.Embedding(VOCAB, HID)
        self.pos = nn.Embedding(MAX_POS, HID)
        self.blocks = nn.LayerList([Block(HID, HEADS, True, True) for _ in range(2)])
        self.ln_f = nn.LayerNorm(HID)
        self.use_triu = use_triu
        # GPT-2 style causal mask buffer, sliced to the dynamic length in forward
        self.register_buffer("causal", paddle.tril(paddle.ones([MAX_POS, MAX_POS])),
                             persistable=True)

    def forward(self, input_ids):
        length = paddle.shape(input_ids)[1]
        pos_ids = paddle.arange(length, dtype="int64")
        h = self.word(input_ids) + self.pos(pos_ids)
        if self.use_triu:
            # mask from triu on a dynamically shaped tensor
            bias = paddle.triu(paddle.ones([length, length], "float32"), diagonal=1) * -10000.0
        else:
            # tril on a dynamically shaped tensor, times the buffer sliced to the length
            keep = paddle.tril(paddle.ones([length, length], "float32")) * self.causal[:length, :length]
            bias = (1.0 - keep) * -10000.0
        for blk in self.blocks:
            h = blk(h, bias)
        h = self.ln_f(h)
        logits = paddle.matmul(h, self.word.weight, transpose_y=True)
        last = logits[:, -1, :]
        return logits, last


def _bert(rng):
    ids = rng.integers(0, VOCAB, (2, 9)).astype("int64")
    types = (np.arange(9)[None, :] >= 5).astype("int64").repeat(2, 0)
    mask = np.ones((2, 9), "float32")
    mask[1, 6:] = 0
    specs = [fspec([None, None], "input_ids", "int64"), fspec([None, None], "token_type_ids", "int64"),
             fspec([None, None], "attention_mask")]
    return BertLike(), specs, [ids, types, mask]


def _gpt(use_triu):
    def build(rng):
        ids = rng.integers(0, VOCAB, (2, 7)).astype("int64")
        return GptLike(use_triu), [fspec([None, None], "input_ids", "int64")], [ids]
    return build, False


# --------------------------------------------------------------------------------------
# UNet and interpolation
# --------------------------------------------------------------------------------------
def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2D(cin, cout, 3, padding=1, bias_attr=False),
                         nn.BatchNorm2D(cout), nn.ReLU())


class SmallUNet(nn.Layer):
    def __init__(self, c=8):
        super().__init__()
        self.e1 = conv_bn_relu(3, c)
        self.e2 = conv_bn_relu(c, 2 * c)
        self.e3 = conv_bn_relu(2 * c, 4 * c)
        self.mid = conv_bn_relu(4 * c, 4 * c)
        self.up3 = nn.Conv2DTranspose(4 * c, 4 * c, 2, stride=2)
        self.d3 = conv_bn_relu(8 * c, 2 * c)
        self.d2 = conv_bn_relu(4 * c, c)
        self.d1 = conv_bn_relu(2 * c, c)
        self.head = nn.Conv2D(c, 2, 1)
        self.pool = nn.MaxPool2D(2)

    def forward(self, x):
        s1 = self.e1(x)                        # H
        s2 = self.e2(self.pool(s1))            # H/2
        s3 = self.e3(self.pool(s2))            # H/4
        m = self.mid(self.pool(s3))            # H/8
        u3 = self.up3(m)                       # transposed conv -> H/4
        d3 = self.d3(paddle.concat([u3, s3], axis=1))
        # bilinear, align_corners=True, scale_factor
        u2 = F.interpolate(d3, scale_factor=2, mode="bilinear", align_corners=True)
        d2 = self.d2(paddle.concat([u2, s2], axis=1))
        # nearest with a size taken from the skip tensor's (dynamic) shape
        u1 = F.interpolate(d2, size=paddle.shape(s1)[2:], mode="nearest")
        d1 = self.d1(paddle.concat([u1, s1], axis=1))
        return self.head(d1)


class InterpMix(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.deconv = nn.Conv2DTranspose(4, 2, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        h = self.conv(x)
        outs = [
            F.interpolate(h, scale_factor=2, mode="bilinear", align_corners=True),
            F.interpolate(h, size=[11, 13], mode="bilinear", align_corners=False),
            F.interpolate(h, scale_factor=2, mode="bilinear", align_corners=False, align_mode=0),
            F.interpolate(h, scale_factor=2, mode="nearest"),
            F.interpolate(h, size=[7, 9], mode="nearest"),
            F.interpolate(h, scale_factor=[1.5, 2.5], mode="nearest"),
            F.interpolate(h, scale_factor=2, mode="bicubic", align_corners=True),
            F.interpolate(h, size=[10, 12], mode="bicubic", align_corners=False),
            F.interpolate(h, size=paddle.shape(x)[2:] * 2, mode="bilinear", align_corners=False),
            self.up(h),
            self.deconv(h),
        ]
        return tuple(outs)


def _unet(rng):
    m = SmallUNet()
    randomize_norm_stats(m, rng)
    return m, [fspec([None, 3, None, None], "image")], [rng.standard_normal((2, 3, 32, 32)).astype("float32")]


def _interp(rng):
    return InterpMix(), [fspec([None, 3, None, None], "image")], [rng.standard_normal((2, 3, 8, 10)).astype("float32")]


# --------------------------------------------------------------------------------------
# op-mix networks
# --------------------------------------------------------------------------------------
class OpMixNormAct(nn.Layer):
    """GroupNorm, InstanceNorm2D, PReLU and a zoo of activations (one output each)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 8, 3, padding=1)
        self.gn = nn.GroupNorm(4, 8)
        self.inorm = nn.InstanceNorm2D(8)
        self.prelu_c = nn.PReLU(num_parameters=8, init=0.1)
        self.prelu_1 = nn.PReLU(init=0.3)

    def forward(self, x):
        h = self.conv(x)
        g = self.gn(h)
        i = self.inorm(h)
        p = self.prelu_c(g) + self.prelu_1(i)
        acts = [
            F.hardtanh(p, -0.5, 0.7),        # brelu
            F.celu(p, alpha=0.8),
            F.hardshrink(p, threshold=0.3),
            F.log_sigmoid(p),                # logsigmoid
            F.mish(p),
            F.selu(p),
            F.softplus(p, beta=2.0, threshold=5.0),
            F.softshrink(p, threshold=0.2),
            F.softsign(p),
            F.tanhshrink(p),
            F.thresholded_relu(p, threshold=0.4),
        ]
        return (g, i, p) + tuple(acts)


class OpMixPad(nn.Layer):
    """F.pad in its various modes: `pad` (constant, full-rank pads) and `pad3d`."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 3, 1)
        self.conv3 = nn.Conv3D(2, 2, 1)

    def forward(self, x, v):
        h = self.conv(x)  # [B, 3, H, W]
        outs = [
            F.pad(h, [0, 0, 0, 1, 1, 2, 2, 3], mode="constant", value=0.5),  # pad op
            F.pad(h, [1, 2, 0, 1], mode="constant", value=-1.0),           # pad3d constant
            F.pad(h, [2, 1, 1, 2], mode="reflect"),
            F.pad(h, [1, 2, 2, 1], mode="replicate"),
            F.pad(h, [1, 1, 2, 0], mode="circular"),
            F.pad(h, [1, 0, 0, 1], mode="reflect", data_format="NHWC"),
            nn.ZeroPad2D([1, 1, 0, 2])(h),
        ]
        g = self.conv3(v)  # [B, 2, D, H, W]
        outs += [
            F.pad(g, [1, 1, 0, 1, 1, 0], mode="constant", value=0.25, data_format="NCDHW"),
            F.pad(g, [1, 1, 1, 0, 0, 1], mode="reflect", data_format="NCDHW"),
            F.pad(g, [0, 1, 1, 1, 1, 0], mode="replicate", data_format="NCDHW"),
            F.pad(g, [1, 0, 1, 0, 0, 1], mode="circular", data_format="NCDHW"),
        ]
        return tuple(outs)


class OpMixIndex(nn.Layer):
    """max_pool2d_with_index, index_select, take_along_axis, gather with a Tensor
    axis, bmm, einsum, sin/cos/ceil, size (numel) and range with Tensor bounds."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, padding=1)
        self.pool = nn.MaxPool2D(2, stride=2, return_mask=True)
        self.lin = nn.Linear(6, 6)

    def forward(self, x, idx, m):
        h = self.conv(x)                              # [B, 4, 8, 8]
        pooled, mask = self.pool(h)                   # [B, 4, 4, 4], int32 indices
        sel = paddle.index_select(pooled, idx, axis=1)
        order = paddle.argsort(pooled, axis=-1)
        taken = paddle.take_along_axis(pooled, order, axis=-1)
        axis = paddle.full([1], 1, "int64")           # Tensor axis -> `Axis` input slot
        gathered = paddle.gather(pooled, idx, axis=axis)
        mm = self.lin(m)                               # [B, 5, 6]
        b = paddle.bmm(mm, paddle.transpose(m, [0, 2, 1]))  # [B, 5, 5]
        e = paddle.einsum("bij,bkj->bik", mm, m)
        e2 = paddle.einsum("bchw->bc", pooled)
        trig = paddle.sin(mm) * paddle.cos(m) + paddle.ceil(m * 3.0)
        n = paddle.numel(m)                            # size op
        scaled = mm / n.astype("float32")
        start = paddle.full([1], 1, "int64")
        end = paddle.shape(m)[1]                        # dynamic bound
        rng = paddle.arange(start, end, 2)              # range with Tensor bounds
        r = paddle.index_select(m, rng, axis=1)
        return pooled, mask, sel, taken, gathered, b, e, e2, trig, n, scaled, rng, r


def _opmix_normact(rng):
    return OpMixNormAct(), [fspec([None, 3, None, None], "x")], [rng.standard_normal((2, 3, 8, 8)).astype("float32")]


def _opmix_pad(rng):
    specs = [fspec([None, 2, None, None], "x"), fspec([None, 2, None, None, None], "v")]
    return OpMixPad(), specs, [rng.standard_normal((2, 2, 5, 6)).astype("float32"),
                               rng.standard_normal((2, 2, 3, 4, 5)).astype("float32")]


def _opmix_index(rng):
    specs = [fspec([None, 3, 8, 8], "x"), fspec([None], "idx", "int64"), fspec([None, 5, 6], "m")]
    return OpMixIndex(), specs, [rng.standard_normal((2, 3, 8, 8)).astype("float32"),
                                 np.array([3, 0, 2], "int64"),
                                 rng.standard_normal((2, 5, 6)).astype("float32")]


# --------------------------------------------------------------------------------------
# registry of models
# --------------------------------------------------------------------------------------
def all_models():
    models = dict(VISION)
    models["transformer_encoder"] = _encoder(False, False)
    models["transformer_encoder_prenorm_mask"] = _encoder(True, True)
    models["transformer_decoder"] = (_decoder, False)
    models["transformer"] = (_transformer, False)
    for kind in ("lstm", "gru", "simple_rnn"):
        acts = ("tanh", "relu") if kind == "simple_rnn" else ("tanh",)
        for act in acts:
            for bidi in (False, True):
                for with_len in (False, True):
                    name = kind + ("_" + act if kind == "simple_rnn" else "")
                    name += "_bidi" if bidi else "_fwd"
                    name += "_seqlen" if with_len else ""
                    models[name] = _rnn(kind, bidi, with_len, act)
    models["bert_like"] = (_bert, False)
    models["gpt_like"] = _gpt(False)
    models["gpt_like_triu"] = _gpt(True)
    models["unet_small"] = (_unet, False)
    models["interp_mix"] = (_interp, False)
    models["opmix_norm_act"] = (_opmix_normact, False)
    models["opmix_pad"] = (_opmix_pad, False)
    models["opmix_index"] = (_opmix_index, False)
    return models


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output directory (required unless --list)")
    ap.add_argument("--large", action="store_true", help="also produce the large models")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    args = ap.parse_args(argv)
    if not args.list and not args.out:
        ap.error("--out is required")

    models = all_models()
    if args.list:
        for name, (_, large) in models.items():
            print(name, "(large)" if large else "")
        return 0
    names = [n for n in models if args.large or not models[n][1]]
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in models]
        if unknown:
            ap.error("unknown models: %s" % unknown)
        names = wanted
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f).get("models", {})
    failures = {}
    for name in names:
        build, large = models[name]
        seed = seed_for(name)
        paddle.seed(seed)
        np.random.seed(seed)
        rng = np.random.default_rng(seed)
        try:
            layer, specs, inputs = build(rng)
            entry = export(args.out, name, layer, specs, inputs, large=large)
        except Exception as exc:  # keep going; report at the end
            if os.environ.get("GEN_DEBUG"):
                raise
            failures[name] = "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else "")
            print("FAILED %s: %s" % (name, failures[name]), flush=True)
            continue
        manifest[name] = entry
        print("%-36s %8.1f KB  %d ops  %s" % (name, entry["total_bytes"] / 1024.0,
                                              len(entry["op_types"]),
                                              "" if entry["finite"] else "NON-FINITE OUTPUT"),
              flush=True)
        del layer
    with open(manifest_path, "w") as f:
        json.dump({"generator": os.path.basename(__file__), "paddle_version": paddle.__version__,
                   "io_convention": "NAME.io.npz: x<i> = i-th feed (feed order of the saved "
                                    "program), y<j> = j-th fetch (fetch order)",
                   "models": dict(sorted(manifest.items()))}, f, indent=1)
    if failures:
        print("%d model(s) failed: %s" % (len(failures), sorted(failures)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
