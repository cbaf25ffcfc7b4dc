#!/usr/bin/env python
"""Generate control-flow models (dynamic-to-static and static API) with Paddle 2.6.

Usage::

    PYTHON_WITH_PADDLE_2_6 gen_control_flow_26.py --out DIR [--only NAME[,NAME...]] [--list]

Two families of models are written, each as ``NAME.pdmodel`` + ``NAME.pdiparams``:

* ``d2s_*``: ``paddle.nn.Layer``s whose ``forward`` uses Python ``if``/``elif``/``else``,
  ``while``, ``for i in range(tensor)``, ``break``, ``continue``, early ``return`` and
  list appends on Tensor values, converted by ``paddle.jit.to_static`` (AST mode, the
  default in Paddle 2.6) and saved with ``paddle.jit.save``;
* ``static_*``: static programs built with ``paddle.static.nn.cond``, ``while_loop``,
  ``switch_case``, ``case`` and tensor arrays (``paddle.tensor.create_array``,
  ``array_write``, ``array_read``, ``array_length``, ``tensor_array_to_tensor``), saved
  with ``paddle.static.save_inference_model``.

Several input sets ("cases") are recorded per model, chosen so that every branch is
taken (and loops run 0, 1 and several times) by at least one case.  ``NAME.io.npz``
holds, for case k, the inputs ``x<i>_<k>`` (feed order of the saved program) and
Paddle's outputs ``y<j>_<k>`` (fetch order), plus ``num_cases``.  The outputs come from
loading the saved model back with ``paddle.static.load_inference_model`` and running it
with a CPU ``Executor``.

For the static programs, ``NAME.backward.txt`` holds ``str(main_program)`` after
``paddle.static.append_backward`` of the mean of the outputs (shows the slots and
attributes of ``conditional_block_grad``, ``while_grad``, ``select_input``,
``select_output``, ``write_to_array``, ``read_from_array``...), and
``NAME.backward.pdmodel`` the same program serialized (a training program, not an
inference model), and ``NAME.backward.npz`` the loss, ``x@GRAD`` and parameter
gradients it computes for every case (keys as in the README).

A ``manifest.json`` lists per model: file sizes, op types over all blocks, number of
blocks, feeds/fetches and the case descriptions.  A ``README.md`` documents all this.
"""
import argparse
import json
import os
import sys

import numpy as np
import paddle
from paddle.static import InputSpec
from pdmodel_files import op_types_of, seed_for, strip_callstacks
from d2s_layers import (BreakContinue, EarlyReturn, ForRange, IfElifElse, IfElse, ListAppend,
                        NestedLoopIf, WhileLoop)


def record(out_dir, name, cases, kind, notes):
    """Reload prefix and run every case.  cases: list of (description, {feed: array})."""
    prefix = os.path.join(out_dir, name)
    paddle.enable_static()
    npz = {"num_cases": np.array(len(cases))}
    case_info = []
    try:
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(paddle.CPUPlace())
            prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
            for k, (desc, feed) in enumerate(cases):
                outs = exe.run(prog, feed={n: feed[n] for n in feeds}, fetch_list=fetches)
                for i, n in enumerate(feeds):
                    npz["x%d_%d" % (i, k)] = feed[n]
                for j, o in enumerate(outs):
                    npz["y%d_%d" % (j, k)] = np.asarray(o)
                case_info.append({"case": k, "description": desc,
                                  "out_shapes": [list(np.shape(o)) for o in outs]})
            fetch_info = [{"name": v.name, "shape": list(v.shape)} for v in fetches]
            feed_info = [{"name": n, "dtype": str(cases[0][1][n].dtype),
                          "fed_shape": list(cases[0][1][n].shape)} for n in feeds]
    finally:
        paddle.disable_static()
    np.savez_compressed(prefix + ".io.npz", **npz)
    ops, nblocks = op_types_of(prefix + ".pdmodel")
    files = {}
    for ext in (".pdmodel", ".pdiparams", ".io.npz", ".backward.txt", ".backward.pdmodel",
                ".backward.npz"):
        if os.path.exists(prefix + ext):
            files[name + ext] = os.path.getsize(prefix + ext)
    entry = {"kind": kind, "files": files, "total_bytes": sum(files.values()),
             "num_blocks": nblocks, "op_types": ops, "feeds": feed_info, "fetches": fetch_info,
             "cases": case_info, "note": notes}
    if os.path.exists(prefix + ".backward.pdmodel"):
        entry["backward_op_types"] = op_types_of(prefix + ".backward.pdmodel")[0]
    return entry


# ======================================================================================
# dynamic-to-static layers (Python control flow on Tensors, in d2s_layers.py)
# ======================================================================================
def _d2s(layer_cls, specs, cases, note):
    def build(name, out_dir, rng):
        layer = layer_cls()
        layer.eval()
        static_layer = paddle.jit.to_static(layer, input_spec=specs, full_graph=True)
        prefix = os.path.join(out_dir, name)
        paddle.jit.save(static_layer, prefix)
        if os.path.exists(prefix + ".pdiparams.info"):
            os.remove(prefix + ".pdiparams.info")
        strip_callstacks(prefix + ".pdmodel")
        return [(d, f(rng)) for d, f in cases]
    build.d2s = (layer_cls, specs, cases)   # reused by gen_pir_33.py
    return build, "dy2static", note


def _x(val=None, shape=(2, 4)):
    """feed maker for x: random of a given sign/offset."""
    def f(rng):
        a = rng.standard_normal(shape).astype("float32")
        if val == "pos":
            a = np.abs(a) + 0.1
        elif val == "neg":
            a = -np.abs(a) - 0.1
        elif val == "big":
            a = np.abs(a) + 2.0
        elif val == "huge":
            a = np.abs(a) + 4.0
        elif val is not None:
            a = a * 0.1 + val
        return a
    return f


def _cases(*items):
    """items: (description, {feed: maker}) -> list of (description, rng -> feed dict)."""
    out = []
    for desc, makers in items:
        out.append((desc, lambda rng, m=makers: {k: (v(rng) if callable(v) else v) for k, v in m.items()}))
    return out


def i64(v):
    return np.array([v], "int64")


def f32(v):
    return np.array([v], "float32")


XS = InputSpec([None, 4], "float32", "x")
NS = InputSpec([1], "int64", "n")

D2S = {
    "d2s_if_else": _d2s(IfElse, [XS], _cases(
        ("mean(x) > 0 -> true branch", {"x": _x("pos")}),
        ("mean(x) <= 0 -> false branch", {"x": _x("neg")})),
        "Python if/else on a Tensor"),
    "d2s_if_elif_else": _d2s(IfElifElse, [XS], _cases(
        ("sum > 5 and max(x) > 3 -> if, nested if taken", {"x": _x("huge")}),
        ("0 < sum <= 5 -> elif", {"x": _x(0.3)}),
        ("sum <= 0 -> else", {"x": _x("neg")}),
        ("sum > 5 and max(x) <= 3 -> if, nested if not taken", {"x": _x(0.7)})),
        "Python if/elif/else with a nested if"),
    "d2s_while": _d2s(WhileLoop, [XS, NS], _cases(
        ("n = 0: no iteration", {"x": _x(), "n": i64(0)}),
        ("n = 1", {"x": _x(), "n": i64(1)}),
        ("n = 5", {"x": _x(), "n": i64(5)})),
        "Python while on a Tensor condition"),
    "d2s_for_range": _d2s(ForRange, [XS, NS], _cases(
        ("n = 0", {"x": _x(), "n": i64(0)}),
        ("n = 1", {"x": _x(), "n": i64(1)}),
        ("n = 4", {"x": _x(), "n": i64(4)})),
        "for i in range(Tensor)"),
    "d2s_break_continue": _d2s(BreakContinue, [XS, NS, InputSpec([1], "float32", "limit")], _cases(
        ("n = 0: loop body never runs", {"x": _x(), "n": i64(0), "limit": f32(100.0)}),
        ("n = 6, large limit: continue taken, no break", {"x": _x(), "n": i64(6), "limit": f32(1e6)}),
        ("n = 10, small limit: break after first odd i", {"x": _x(), "n": i64(10), "limit": f32(0.01)}),
        ("n = 10, medium limit: break later", {"x": _x(), "n": i64(10), "limit": f32(2.0)})),
        "for range(Tensor) with continue and break"),
    "d2s_early_return": _d2s(EarlyReturn, [XS], _cases(
        ("min(x) > 0 -> first return", {"x": _x("pos")}),
        ("max(x) < 0 -> second return", {"x": _x("neg")}),
        ("mixed signs -> final return", {"x": _x()})),
        "early returns inside ifs"),
    "d2s_nested_loop_if": _d2s(NestedLoopIf, [XS, NS], _cases(
        ("n = 0", {"x": _x(), "n": i64(0)}),
        ("n = 3, positive start", {"x": _x("big"), "n": i64(3)}),
        ("n = 4, negative start", {"x": _x("neg"), "n": i64(4)})),
        "while with if/else and a nested for range(Tensor)"),
    "d2s_list_append": _d2s(ListAppend, [XS, NS], _cases(
        ("n = 0", {"x": _x(), "n": i64(0)}),
        ("n = 1", {"x": _x(), "n": i64(1)}),
        ("n = 3", {"x": _x(), "n": i64(3)})),
        "list.append in a loop -> tensor array (write_to_array), then list[-1]"),
}


# ======================================================================================
# static programs
# ======================================================================================
def _static_cond(x, y):
    """paddle.static.nn.cond with both branches returning two tensors."""
    h = paddle.static.nn.fc(x, 4, name="fc_cond")
    pred = paddle.mean(x) > 0.0

    def true_fn():
        return h * 2.0, paddle.sum(h)

    def false_fn():
        return paddle.exp(h * 0.1) + y, paddle.max(h)

    a, b = paddle.static.nn.cond(pred, true_fn, false_fn)
    return [a, b]


def _static_while_loop(x, n):
    h = paddle.static.nn.fc(x, 4, name="fc_while")
    i = paddle.full([1], 0, "int64")

    def cond(i, h):
        return i < n

    def body(i, h):
        return [i + 1, paddle.tanh(h) * 1.5 + 0.1]

    i, h = paddle.static.nn.while_loop(cond, body, [i, h])
    return [h, i]


def _static_switch_case(x, idx):
    h = paddle.static.nn.fc(x, 4, name="fc_switch")
    out = paddle.static.nn.switch_case(
        branch_index=idx,
        branch_fns={0: lambda: h + 1.0, 1: lambda: h * h, 3: lambda: paddle.nn.functional.sigmoid(h)},
        default=lambda: h - 5.0)
    return [out]


def _static_case(x, t):
    h = paddle.static.nn.fc(x, 4, name="fc_case")
    out = paddle.static.nn.case(
        pred_fn_pairs=[(t < 0.0, lambda: h * -1.0), (t < 1.0, lambda: paddle.nn.functional.relu(h))],
        default=lambda: h * 3.0)
    return [out]


def _static_tensor_array(x, n):
    """create_array / array_write / array_read / array_length / tensor_array_to_tensor
    inside a while_loop."""
    h = paddle.static.nn.fc(x, 4, name="fc_array")
    arr = paddle.tensor.create_array("float32")
    i0 = paddle.full([1], 0, "int64")
    paddle.tensor.array_write(h, i0, array=arr)

    def cond(i, h, arr):
        return i < n

    def body(i, h, arr):
        prev = paddle.tensor.array_read(arr, i)
        nxt = paddle.sin(prev) + h
        i = i + 1
        paddle.tensor.array_write(nxt, i, array=arr)
        return [i, h, arr]

    i, h, arr = paddle.static.nn.while_loop(cond, body, [i0, h, arr])
    length = paddle.tensor.array_length(arr)
    last = paddle.tensor.array_read(arr, i)
    # (OutIndex is not fetched: Paddle 2.6's CPU executor leaves it without memory)
    cat, _ = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=0, use_stack=False)
    stk, _ = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=1, use_stack=True)
    return [cat, stk, length, last]


def _static_cond_in_while(x, n):
    """a cond inside a while_loop body (conditional_block nested in a while block)."""
    h = paddle.static.nn.fc(x, 4, name="fc_cw")
    i = paddle.full([1], 0, "int64")

    def cond(i, h):
        return i < n

    def body(i, h):
        h2 = paddle.static.nn.cond(paddle.mean(h) > 0.0, lambda: h - 0.5, lambda: h * 0.5 + 0.3)
        return [i + 1, h2]

    i, h = paddle.static.nn.while_loop(cond, body, [i, h])
    return [h]


def _static(builder, second, cases, note):
    """second: (name, shape, dtype) of the second feed."""
    def build(name, out_dir, rng):
        main, startup = paddle.static.Program(), paddle.static.Program()
        main.random_seed = startup.random_seed = seed_for(name)
        paddle.enable_static()
        try:
            with paddle.static.program_guard(main, startup):
                x = paddle.static.data("x", [None, 4], "float32")
                x.stop_gradient = False
                s = paddle.static.data(second[0], second[1], second[2])
                outs = builder(x, s)
            scope = paddle.static.Scope()
            with paddle.static.scope_guard(scope):
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup)
                prefix = os.path.join(out_dir, name)
                paddle.static.save_inference_model(prefix, [x, s], outs, exe, program=main)
                strip_callstacks(prefix + ".pdmodel")
                # training program: sum of the means of the float outputs, append_backward
                train = main.clone()
                with paddle.static.program_guard(train, startup):
                    fouts = [train.global_block().var(o.name) for o in outs
                             if o.dtype == paddle.float32]
                    loss = paddle.add_n([paddle.mean(o) for o in fouts])
                    pairs = paddle.static.append_backward(loss)
                with open(prefix + ".backward.txt", "w") as f:
                    f.write(str(train))
                with open(prefix + ".backward.pdmodel", "wb") as f:
                    f.write(train.desc.serialize_to_string())
                strip_callstacks(prefix + ".backward.pdmodel")
                # reference gradients (loss, x@GRAD, param@GRADs) for every case
                grad_vars = [loss, train.global_block().var("x@GRAD")] + [g for _, g in pairs]
                feeds = [(d, f(rng)) for d, f in cases]
                gnpz = {"num_cases": np.array(len(feeds)),
                        "feed_names": np.array(["x", second[0]]),
                        "fetch_names": np.array([v.name for v in grad_vars])}
                for k, (_, feed) in enumerate(feeds):
                    vals = exe.run(train, feed=feed, fetch_list=grad_vars)
                    for i, n in enumerate(["x", second[0]]):
                        gnpz["x%d_%d" % (i, k)] = feed[n]
                    for j, v in enumerate(vals):
                        gnpz["y%d_%d" % (j, k)] = np.asarray(v)
                np.savez_compressed(prefix + ".backward.npz", **gnpz)
        finally:
            paddle.disable_static()
        return feeds
    return build, "static", note


STATIC = {
    "static_cond": _static(_static_cond, ("y", [1], "float32"), _cases(
        ("mean(x) > 0 -> true_fn", {"x": _x("pos"), "y": f32(0.5)}),
        ("mean(x) <= 0 -> false_fn", {"x": _x("neg"), "y": f32(0.5)})),
        "paddle.static.nn.cond with two outputs per branch"),
    "static_while_loop": _static(_static_while_loop, ("n", [1], "int64"), _cases(
        ("n = 0", {"x": _x(), "n": i64(0)}),
        ("n = 1", {"x": _x(), "n": i64(1)}),
        ("n = 4", {"x": _x(), "n": i64(4)})),
        "paddle.static.nn.while_loop"),
    "static_switch_case": _static(_static_switch_case, ("idx", [1], "int64"), _cases(
        ("branch 0", {"x": _x(), "idx": i64(0)}),
        ("branch 1", {"x": _x(), "idx": i64(1)}),
        ("branch 3", {"x": _x(), "idx": i64(3)}),
        ("index 2 -> default", {"x": _x(), "idx": i64(2)}),
        ("index 7 -> default", {"x": _x(), "idx": i64(7)})),
        "paddle.static.nn.switch_case with a default"),
    "static_case": _static(_static_case, ("t", [1], "float32"), _cases(
        ("t < 0 -> first pair", {"x": _x(), "t": f32(-1.0)}),
        ("0 <= t < 1 -> second pair", {"x": _x(), "t": f32(0.5)}),
        ("t >= 1 -> default", {"x": _x(), "t": f32(2.0)})),
        "paddle.static.nn.case with a default"),
    "static_tensor_array": _static(_static_tensor_array, ("n", [1], "int64"), _cases(
        ("n = 0: one element", {"x": _x(), "n": i64(0)}),
        ("n = 2", {"x": _x(), "n": i64(2)}),
        ("n = 4", {"x": _x(), "n": i64(4)})),
        "tensor arrays in a while_loop + tensor_array_to_tensor (concat and stack)"),
    "static_cond_in_while": _static(_static_cond_in_while, ("n", [1], "int64"), _cases(
        ("n = 0", {"x": _x(), "n": i64(0)}),
        ("n = 3, positive start", {"x": _x("big"), "n": i64(3)}),
        ("n = 5, negative start", {"x": _x("neg"), "n": i64(5)})),
        "cond nested inside a while_loop body"),
}


README = """# Control-flow corpus (Paddle {version})

Generated by `gen_control_flow_26.py --out DIR` (deterministic; random weights).

* `d2s_*`: `paddle.nn.Layer`s with Python control flow on Tensors converted by
  `paddle.jit.to_static` (AST mode) and saved with `paddle.jit.save`.
* `static_*`: static programs built with `paddle.static.nn.cond` / `while_loop` /
  `switch_case` / `case` / tensor arrays, saved with `paddle.static.save_inference_model`.

Per model `NAME`:

| file | content |
| --- | --- |
| `NAME.pdmodel`, `NAME.pdiparams` | the inference model |
| `NAME.io.npz` | several recorded cases: `num_cases`; for case k the inputs `x<i>_<k>` (i = position in the saved program's feed order) and Paddle's outputs `y<j>_<k>` (j = fetch order). Outputs come from `paddle.static.load_inference_model` + CPU `Executor` on the saved files. |
| `NAME.backward.txt` | (static_* only) `str(program)` of the main program after `append_backward(sum of means of the float outputs)`: shows `conditional_block_grad`, `while_grad`, `select_input`/`select_output`, `write_to_array`/`read_from_array` etc. with their slots and attributes |
| `NAME.backward.pdmodel` | (static_* only) the same training program, serialized ProgramDesc (not an inference model: no feed/fetch ops; parameters are those of `NAME.pdiparams`) |
| `NAME.backward.npz` | (static_* only) reference values of the training program for every case: `feed_names`, `fetch_names` (the loss, `x@GRAD`, then each `param@GRAD`), inputs `x<i>_<k>` and fetched values `y<j>_<k>` |

`manifest.json` lists, per model, the files and sizes, op types over all blocks (and of the
backward program), the feeds (names, dtypes), the fetches and the description of every case
(which branch / how many iterations it exercises).

## Cases
{cases}
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output directory (required unless --list)")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    if not args.list and not args.out:
        ap.error("--out is required")
    models = dict(D2S)
    models.update(STATIC)
    if args.list:
        print("\n".join(models))
        return 0
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(models)
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f).get("models", {})
    failures = []
    for name in names:
        build, kind, note = models[name]
        seed = seed_for(name)
        paddle.seed(seed)
        np.random.seed(seed)
        rng = np.random.default_rng(seed)
        try:
            cases = build(name, args.out, rng)
            manifest[name] = record(args.out, name, cases, kind, note)
        except Exception as exc:  # noqa: BLE001
            if os.environ.get("GEN_DEBUG"):
                raise
            msg = str(exc).strip().splitlines()
            failures.append(name)
            print("FAILED %s: %s: %s" % (name, type(exc).__name__, msg[-1][:300] if msg else ""), flush=True)
            continue
        e = manifest[name]
        print("%-24s %7.1f KB  blocks=%d  %s" % (name, e["total_bytes"] / 1024.0, e["num_blocks"],
                                                  " ".join(e["op_types"])), flush=True)
    with open(manifest_path, "w") as f:
        json.dump({"generator": os.path.basename(__file__), "paddle_version": paddle.__version__,
                   "io_convention": "NAME.io.npz: num_cases; x<i>_<k> = i-th feed of case k, "
                                    "y<j>_<k> = j-th fetch of case k",
                   "models": dict(sorted(manifest.items()))}, f, indent=1)
    lines = []
    for name, e in sorted(manifest.items()):
        lines.append("* `%s` (%s): %s" % (name, e["kind"], e["note"]))
        for c in e["cases"]:
            lines.append("  * case %d: %s" % (c["case"], c["description"]))
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write(README.format(version=paddle.__version__, cases="\n".join(lines)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
