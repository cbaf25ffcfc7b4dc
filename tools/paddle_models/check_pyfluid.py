#!/usr/bin/env python
"""Load every model of a corpus folder with pyfluid and compare with Paddle's outputs.

Usage::

    PYTHON_WITH_PYFLUID check_pyfluid.py --dir DIR [--only NAMES] [--timeout S] [--json OUT]

DIR holds ``manifest.json`` and, per model, ``NAME.pdmodel`` (or PIR ``NAME.json``), ``.pdiparams`` and
``NAME.io.npz`` (inputs ``x<i>``/outputs ``y<j>``; or, for several recorded cases,
``x<i>_<k>``/``y<j>_<k>``).  Each model runs in its own subprocess (with a timeout), via
``pyfluid.static.load_inference_model`` and a pyfluid ``Executor``.  For each model we
record whether it loads, whether it runs, the max abs error and the max relative
error (max|a-b| / max(max|b|, 1e-6), per output, worst over outputs and cases) or the
error message, plus the op types its program uses that pyfluid's registry lacks.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def _cases(npz):
    keys = set(npz.files)
    if "x0" in keys or "y0" in keys:
        return [("", sorted(k for k in keys if k.startswith("x")), sorted(k for k in keys if k.startswith("y")))]
    ks = sorted({int(k.split("_")[1]) for k in keys if "_" in k and k[0] in "xy"})
    return [("_%d" % k, None, None) for k in ks]


def check_one(prefix):
    """Runs in the child: returns a dict (json-serialisable)."""
    import numpy as np
    import pyfluid as paddle

    res = {"loads": False, "runs": False}
    paddle.enable_static()
    exe = paddle.static.Executor()
    t0 = time.time()
    try:
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    except Exception as exc:  # noqa: BLE001
        res["error"] = "load: %s: %s" % (type(exc).__name__, str(exc).strip()[:400])
        return res
    res["loads"] = True
    res["load_s"] = round(time.time() - t0, 3)
    npz = np.load(prefix + ".io.npz")
    worst_abs, worst_rel = 0.0, 0.0
    per_output = []
    t0 = time.time()
    for suffix, _, _ in _cases(npz):
        feed = {}
        i = 0
        while "x%d%s" % (i, suffix) in npz.files:
            feed[feeds[i]] = npz["x%d%s" % (i, suffix)]
            i += 1
        try:
            outs = exe.run(prog, feed=feed, fetch_list=fetches)
        except Exception as exc:  # noqa: BLE001
            res["error"] = "run%s: %s: %s" % (suffix, type(exc).__name__, str(exc).strip()[:400])
            return res
        for j, out in enumerate(outs):
            ref = npz["y%d%s" % (j, suffix)]
            out = np.asarray(out)
            if out.shape != ref.shape:
                res["error"] = "run%s: output %d shape %s != paddle %s" % (suffix, j, out.shape, ref.shape)
                return res
            if ref.size == 0:
                continue
            if ref.dtype == np.bool_ or out.dtype == np.bool_:
                a = float(np.max(out.astype(np.int64) != ref.astype(np.int64)))
                r = a
            else:
                diff = np.atleast_1d(np.abs(out.astype(np.float64) - ref.astype(np.float64)))
                diff[np.atleast_1d(np.isnan(out) & np.isnan(ref))] = 0.0
                a = float(np.max(diff))
                r = a / max(float(np.nanmax(np.abs(ref.astype(np.float64)))), 1e-6)
            per_output.append(r)
            worst_abs, worst_rel = max(worst_abs, a), max(worst_rel, r)
    res["runs"] = True
    res["run_s"] = round(time.time() - t0, 3)
    res["max_abs"] = worst_abs
    res["max_rel"] = worst_rel
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--json", default=None, help="write results here (default DIR/pyfluid_check.json)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print("@@RESULT@@" + json.dumps(check_one(args.child)))
        return 0

    from pyfluid.ops.registry import registered_ops

    registered = set(registered_ops())
    with open(os.path.join(args.dir, "manifest.json")) as f:
        manifest = json.load(f)["models"]
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(manifest)
    out_path = args.json or os.path.join(args.dir, "pyfluid_check.json")
    results = {}
    if os.path.exists(out_path) and args.only:
        with open(out_path) as f:
            results = json.load(f).get("models", {})
    for name in names:
        entry = manifest[name]
        missing = sorted(set(entry.get("op_types", ())) - registered)   # PIR corpora: op_names
        prefix = os.path.join(args.dir, name)
        t0 = time.time()
        try:
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--dir", args.dir,
                                   "--child", prefix], capture_output=True, text=True,
                                  timeout=args.timeout)
            line = [l for l in proc.stdout.splitlines() if l.startswith("@@RESULT@@")]
            if line:
                res = json.loads(line[-1][len("@@RESULT@@"):])
            else:
                res = {"loads": False, "runs": False,
                       "error": "crashed (rc %s): %s" % (proc.returncode, proc.stderr.strip()[-400:])}
        except subprocess.TimeoutExpired:
            res = {"loads": None, "runs": False, "error": "timeout after %ss" % args.timeout}
        res["missing_ops"] = missing
        res["wall_s"] = round(time.time() - t0, 1)
        results[name] = res
        status = ("OK max_abs=%.3g max_rel=%.3g" % (res["max_abs"], res["max_rel"])) if res.get("runs") \
            else res.get("error", "")[:160]
        print("%-36s %s%s" % (name, status, ("  missing=" + ",".join(missing)) if missing else ""), flush=True)
    with open(out_path, "w") as f:
        json.dump({"registered_ops": len(registered), "models": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
