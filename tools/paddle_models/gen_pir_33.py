#!/usr/bin/env python
"""Generate a corpus of Paddle 3.x PIR models (``NAME.json`` + ``NAME.pdiparams``).

Usage::

    PYTHON_WITH_PADDLE_3 gen_pir_33.py --out DIR [--large] [--only NAME[,NAME...]] [--list]

With Paddle 3's defaults (PIR on), ``paddle.jit.save`` writes the program as PIR JSON
(``NAME.json``) and the parameters as ``NAME.pdiparams`` (the same ``save_combine``
stream as Paddle 2.x, tensors in sorted-name order).  For each model this script
writes those two files and ``NAME.io.npz``: the fed inputs ``x0, x1, ...`` (feed order
of the saved program) and Paddle's outputs ``y0, y1, ...`` (fetch order), computed by
loading the saved files back with ``paddle.static.load_inference_model`` (PIR) and
running them with a CPU ``Executor``; models with control flow record several cases
(``x<i>_<k>``/``y<j>_<k>``, ``num_cases``), see ``manifest.json``.

``manifest.json`` records per model: file sizes, the PIR version written in the file,
the op names (decompressed, all regions), feeds (name/shape/dtype from ``pd_op.data``),
fetch names, and the parameter names in ``.pdiparams`` order (checked against the
tensors actually stored there).  The models: an MLP, LeNet, a Transformer encoder, LSTM /
GRU / SimpleRNN, BERT- and GPT-like blocks, op mixes (gen_zoo_26.py's layers), and
dynamic-to-static control flow (if/while regions; gen_control_flow_26.py's layers, all their
cases). The vision models (and two other big ones) are "large": only with ``--large``.

Deterministic: every model seeds Paddle/NumPy from a CRC of its name; random weights.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec
from pdmodel_files import seed_for
from d2s_layers import IfElse, WhileLoop


DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf", "3": "custom_op", "4": "dist_op"}


def op_name(op):
    """Decompressed op name ("1.matmul" -> "pd_op.matmul", "p" -> "builtin.parameter")."""
    name = op["#"]
    if name == "p":
        return "builtin.parameter"
    d, _, rest = name.partition(".")
    return DIALECTS.get(d, d) + "." + rest


def walk_ops(region_list):
    for region in region_list:
        for block in region["blocks"]:
            for op in block["ops"]:
                yield op
                if "regions" in op:
                    yield from walk_ops(op["regions"])


def attr(op, name):
    for a in op.get("A", []):
        if isinstance(a, dict) and a.get("N") == name:
            return a["AT"].get("D")
    return None


def read_pdiparams(path):
    """Parse a save_combine stream: list of (dtype enum, dims, nbytes)."""
    from paddle.base.proto import framework_pb2

    out = []
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        (version,) = struct.unpack_from("<I", data, pos)
        pos += 4
        (lod_level,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        for _ in range(lod_level):
            (n,) = struct.unpack_from("<Q", data, pos)
            pos += 8 + n
        (tversion,) = struct.unpack_from("<I", data, pos)
        pos += 4
        (dsize,) = struct.unpack_from("<i", data, pos)
        pos += 4
        desc = framework_pb2.VarType.TensorDesc()
        desc.ParseFromString(data[pos:pos + dsize])
        pos += dsize
        itemsize = {5: 4, 6: 8, 3: 8, 2: 4, 0: 1, 4: 2, 20: 1, 21: 1, 22: 2}[desc.data_type]
        nbytes = int(np.prod(desc.dims)) * itemsize if len(desc.dims) else itemsize
        out.append((int(desc.data_type), list(desc.dims), nbytes))
        pos += nbytes
    return out


def describe_json(path, pdiparams):
    with open(path) as f:
        d = json.load(f)
    ops = list(walk_ops(d["program"]["regions"]))
    names = sorted({op_name(o) for o in ops})
    feeds = []
    params = []
    fetches = []
    for o in ops:
        n = op_name(o)
        if n == "pd_op.data":
            feeds.append({"name": attr(o, "name"), "shape": attr(o, "shape"), "dtype": attr(o, "dtype")})
        elif n == "builtin.parameter":
            # "A": [is_distributed, is_parameter, need_clip, name];
            # "OA": [persistable, stop_gradient, trainable] (only when trainable=true)
            o_val = o["O"]
            params.append({"name": o["A"][3], "shape": o_val["TT"]["D"][1],
                           "dtype": o_val["TT"]["D"][0]["#"],
                           "persistable": bool(o.get("OA", [1])[0])})
        elif n == "pd_op.fetch":
            fetches.append(attr(o, "name"))
    stored = read_pdiparams(pdiparams) if os.path.exists(pdiparams) else []
    # only persistable parameters are stored (e.g. an RNN's dropout state is not)
    order = sorted(p["name"] for p in params if p["persistable"])
    shapes = {p["name"]: p["shape"] for p in params}
    order_ok = len(stored) == len(order) and all(
        list(shapes[n]) == dims for n, (_, dims, _) in zip(order, stored))
    return {"pir_version": d["base_code"]["version"], "base_code": d["base_code"],
            "num_ops": len(ops), "op_names": names, "feeds": feeds, "fetch_names": fetches,
            "pdiparams_order": order, "pdiparams_tensors": len(stored),
            "non_persistable_parameter_ops": [p["name"] for p in params if not p["persistable"]],
            "pdiparams_order_is_sorted_names_verified": bool(order_ok)}


def run_saved(prefix, cases):
    """Load with paddle.static.load_inference_model (PIR) and run every case."""
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            prog, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
            results = []
            for feed in cases:
                outs = exe.run(prog, feed={n: feed[n] for n in feed_names}, fetch_list=fetches)
                results.append([np.asarray(o) for o in outs])
        return list(feed_names), results
    finally:
        paddle.disable_static()


# --------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------
class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 10)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = F.gelu(self.fc2(h))
        return F.softmax(self.fc3(h), axis=-1)


class Encoder(nn.Layer):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, 2)

    def forward(self, src):
        return self.enc(src)


class LSTMNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16, num_layers=2, direction="bidirect")

    def forward(self, x, seq_len):
        out, (h, c) = self.rnn(x, sequence_length=seq_len)
        return out, h, c


def randomize_bn(layer, rng):
    for sub in layer.sublayers(include_self=True):
        if isinstance(sub, (nn.BatchNorm2D, nn.BatchNorm)):
            sub._mean.set_value(rng.uniform(-0.1, 0.1, sub._mean.shape).astype("float32"))
            sub._variance.set_value(rng.uniform(0.5, 1.5, sub._variance.shape).astype("float32"))


def _vision(fn, chans=3, size=64):
    def build(rng):
        import paddle.vision.models as M

        m = M.LeNet(num_classes=10) if fn == "lenet" else getattr(M, fn)(num_classes=10)
        randomize_bn(m, rng)
        x = rng.standard_normal((2, chans, size, size)).astype("float32")
        return m, [InputSpec([None, chans, size, size], "float32", "image")], [{"image": x}]
    return build


def _mlp(rng):
    return MLP(), [InputSpec([None, 16], "float32", "x")], [{"x": rng.standard_normal((2, 16)).astype("float32")}]


def _encoder(rng):
    return Encoder(), [InputSpec([None, None, 32], "float32", "src")], \
        [{"src": rng.standard_normal((2, 7, 32)).astype("float32")}]


def _lstm(rng):
    return LSTMNet(), [InputSpec([None, None, 8], "float32", "x"), InputSpec([None], "int64", "seq_len")], \
        [{"x": rng.standard_normal((2, 6, 8)).astype("float32"), "seq_len": np.array([6, 3], "int64")}]


def _if(rng):
    x = rng.standard_normal((2, 4)).astype("float32")
    return IfElse(), [InputSpec([None, 4], "float32", "x")], \
        [{"x": np.abs(x) + 0.1}, {"x": -np.abs(x) - 0.1}]


def _while(rng):
    x = rng.standard_normal((2, 4)).astype("float32")
    return WhileLoop(), [InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")], \
        [{"x": x, "n": np.array([n], "int64")} for n in (0, 1, 4)]


def _zoo(name):
    """A model of gen_zoo_26.py (same layers and inputs), saved by Paddle 3."""
    def build(rng):
        import gen_zoo_26
        model, specs, inputs = gen_zoo_26.all_models()[name][0](rng)
        return model, specs, [{s.name: x for s, x in zip(specs, inputs)}]
    return build


def _bert(rng):
    """gen_zoo_26's BertLike; in Paddle 3 ``Layer.type`` is a method, which hides the
    token-type embedding sublayer named ``type``, so forward reaches it through _sub_layers."""
    import gen_zoo_26 as z

    class BertLike3(z.BertLike):
        def forward(self, input_ids, token_type_ids, attention_mask):
            length = paddle.shape(input_ids)[1]
            pos_ids = paddle.arange(0, length, dtype="int64").unsqueeze(0)
            h = self.word(input_ids) + self.pos(pos_ids) + \
                self._sub_layers["type"](token_type_ids)
            h = self.ln(h)
            bias = (1.0 - attention_mask.unsqueeze([1, 2])) * -10000.0
            for blk in self.blocks:
                h = blk(h, bias)
            return h, paddle.tanh(self.pool(h[:, 0]))

    _, specs, inputs = z._bert(rng)
    return BertLike3(), specs, [{s.name: x for s, x in zip(specs, inputs)}]


def _d2s(name):
    """A dynamic-to-static model of gen_control_flow_26.py with all its recorded cases."""
    def build(rng):
        import gen_control_flow_26 as cf
        layer_cls, specs, cases = cf.D2S[name][0].d2s
        return layer_cls(), specs, [make(rng) for _, make in cases]
    return build


MODELS = {  # name -> (builder, large)
    "mlp": (_mlp, False),
    "lenet": (_vision("lenet", 1, 28), False),
    "mobilenet_v2": (_vision("mobilenet_v2"), True),
    "resnet18": (_vision("resnet18"), True),
    "transformer_encoder": (_encoder, False),
    "lstm_bidi_seqlen": (_lstm, False),
    "if_else": (_if, False),
    "while_loop": (_while, False),
    # vision models (large: generated on demand, see README)
    **{name: (_zoo(name), True) for name in (
        "mobilenet_v1", "mobilenet_v3_small", "shufflenet_v2_x0_25", "squeezenet1_1",
        "densenet121", "resnext50_32x4d", "vgg11_bn", "googlenet", "inception_v3")},
    # sequence and attention models, op mixes (the last two: on demand, to keep the
    # committed set near 1 MB)
    **{name: (_zoo(name), False) for name in (
        "gru_bidi_seqlen", "simple_rnn_relu_fwd", "gpt_like_triu", "interp_mix",
        "opmix_norm_act", "opmix_pad", "opmix_index")},
    **{name: (_zoo(name), True) for name in ("transformer_encoder_prenorm_mask", "unet_small")},
    "bert_like": (_bert, False),
    # dynamic-to-static control flow (if/while regions), several cases each
    **{name: (_d2s("d2s_" + name), False) for name in (
        "if_elif_else", "for_range", "break_continue", "early_return", "nested_loop_if",
        "list_append")},
}


def export(out_dir, name, build, rng, large):
    layer, specs, cases = build(rng)
    layer.eval()
    prefix = os.path.join(out_dir, name)
    static_layer = paddle.jit.to_static(layer, input_spec=specs, full_graph=True)
    paddle.jit.save(static_layer, prefix)
    if os.path.exists(prefix + ".pdiparams.info"):
        os.remove(prefix + ".pdiparams.info")
    feed_names, results = run_saved(prefix, cases)
    npz = {}
    if len(cases) == 1:
        for i, n in enumerate(feed_names):
            npz["x%d" % i] = cases[0][n]
        for j, o in enumerate(results[0]):
            npz["y%d" % j] = o
    else:
        npz["num_cases"] = np.array(len(cases))
        for k, (feed, outs) in enumerate(zip(cases, results)):
            for i, n in enumerate(feed_names):
                npz["x%d_%d" % (i, k)] = feed[n]
            for j, o in enumerate(outs):
                npz["y%d_%d" % (j, k)] = o
    np.savez_compressed(prefix + ".io.npz", **npz)
    files = {name + ext: os.path.getsize(prefix + ext)
             for ext in (".json", ".pdiparams", ".io.npz") if os.path.exists(prefix + ext)}
    entry = {"large": large, "files": files, "total_bytes": sum(files.values()),
             "loaded_feed_order": feed_names, "num_cases": len(cases),
             "out_shapes": [[list(o.shape) for o in r] for r in results]}
    entry.update(describe_json(prefix + ".json", prefix + ".pdiparams"))
    return entry


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output directory (required unless --list)")
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    if not args.list and not args.out:
        ap.error("--out is required")
    if args.list:
        for n, (_, large) in MODELS.items():
            print(n, "(large)" if large else "")
        return 0
    names = [n.strip() for n in args.only.split(",") if n.strip()] or \
        [n for n, (_, large) in MODELS.items() if args.large or not large]
    os.makedirs(args.out, exist_ok=True)
    mpath = os.path.join(args.out, "manifest.json")
    manifest = {}
    if os.path.exists(mpath):
        with open(mpath) as f:
            manifest = json.load(f).get("models", {})
    failed = []
    for name in names:
        build, large = MODELS[name]
        seed = seed_for(name)
        paddle.seed(seed)
        np.random.seed(seed)
        rng = np.random.default_rng(seed)
        try:
            manifest[name] = export(args.out, name, build, rng, large)
        except Exception as exc:  # noqa: BLE001
            if os.environ.get("GEN_DEBUG"):
                raise
            failed.append(name)
            msg = str(exc).strip().splitlines()
            print("FAILED %s: %s: %s" % (name, type(exc).__name__, msg[-1][:300] if msg else ""))
            continue
        e = manifest[name]
        print("%-22s %9.1f KB  pir v%s  %d ops  params sorted-by-name verified: %s"
              % (name, e["total_bytes"] / 1024.0, e["pir_version"], e["num_ops"],
                 e["pdiparams_order_is_sorted_names_verified"]), flush=True)
    with open(mpath, "w") as f:
        json.dump({"generator": os.path.basename(__file__), "paddle_version": paddle.__version__,
                   "io_convention": "NAME.io.npz: x<i> = i-th feed (feed order of the saved "
                                    "program), y<j> = j-th fetch; with several cases: "
                                    "num_cases, x<i>_<k>, y<j>_<k>",
                   "models": dict(sorted(manifest.items()))}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
