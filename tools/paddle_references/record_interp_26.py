"""Record Paddle 2.6's interpolation ops (forward and input gradient) for pyfluid's tests.

Run with a Paddle 2.6 interpreter (never a pyfluid dependency):

    /path/to/paddle26/bin/python tools/paddle_references/record_interp_26.py tests/golden/interp_v2_paddle26.npz

Each case appends one *_interp_v2 op directly (so every input combination is covered: the
scale/out_* attributes, OutSize, SizeTensor and Scale inputs, both layouts, align_corners and
align_mode), runs it on a fixed input and records Out and d sum(Out * R) / dX, where R is the
deterministic projection ``projection(shape)`` below (the test rebuilds it). The case list is
stored in the file as JSON, so the test reads exactly what was recorded.
"""
import json
import sys

import numpy as np

CASES = []


def case(op, x, attrs, **inputs):
    CASES.append({"op": op, "x": x, "attrs": attrs, "inputs": inputs})


def projection(shape):
    return np.cos(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.7).reshape(shape) + 1.5


X_SHAPES = {"x1": [1, 2, 7], "x2": [1, 2, 5, 7], "x2_nhwc": [1, 5, 7, 2], "x3": [1, 2, 3, 4, 5]}


def build_cases():
    for method in ("bilinear", "bicubic", "nearest"):
        op = f"{method}_interp_v2"
        corners = (False,) if method == "nearest" else (False, True)
        modes = (0, 1) if method == "bilinear" else (1,)
        for ac in corners:
            for am in modes:
                base = {"interp_method": method, "align_corners": ac, "align_mode": am,
                        "out_d": -1, "out_h": -1, "out_w": -1}
                case(op, "x2", {**base, "scale": [2.0, 2.0]})
                case(op, "x2", {**base, "scale": [1.7, 0.6]})
                case(op, "x2", {**base, "out_h": 9, "out_w": 4})
                case(op, "x2", {**base, "out_h": 1, "out_w": 12})
                case(op, "x2_nhwc", {**base, "scale": [1.5, 2.5], "data_layout": "NHWC"})
                case(op, "x2", {**base, "scale": []}, OutSize=[8, 11])
        base = {"interp_method": method, "align_corners": False, "align_mode": 1,
                "out_d": -1, "out_h": -1, "out_w": -1, "scale": []}
        case(op, "x2", {**base, "out_h": 6}, SizeTensor=[[6], [10]])
        case(op, "x2", base, Scale=[1.5])
        case(op, "x2", base, Scale=[1.3, 2.2])
        case(op, "x2", base, Scale=[2.0, 2.0], OutSize=[9, 13])  # ratio from Scale, size from OutSize
        case(op, "x2", {**base, "scale": [2.0, 3.0]}, OutSize=[6, 13])
        case(op, "x2", {**base, "out_h": 5, "out_w": 7})          # same size: a copy
    for ac, am in ((False, 0), (False, 1), (True, 1)):
        base = {"interp_method": "linear", "align_corners": ac, "align_mode": am,
                "out_d": -1, "out_h": -1, "out_w": -1}
        case("linear_interp_v2", "x1", {**base, "scale": [2.5]})
        case("linear_interp_v2", "x1", {**base, "scale": [], "out_w": 4})
        base["interp_method"] = "trilinear"
        case("trilinear_interp_v2", "x3", {**base, "scale": [2.0, 1.5, 0.8]})
        case("trilinear_interp_v2", "x3", {**base, "scale": [], "out_d": 2, "out_h": 6,
                                           "out_w": 3})
    base = {"interp_method": "nearest", "align_corners": False, "align_mode": 1,
            "out_d": -1, "out_h": -1, "out_w": -1}
    case("nearest_interp_v2", "x3", {**base, "scale": [1.5, 2.0, 0.7]})
    case("linear_interp_v2", "x1", {**base, "interp_method": "linear", "scale": []},
         Scale=[1.8])


def run(path):
    import paddle
    paddle.enable_static()
    rng = np.random.default_rng(2026)
    xs = {k: rng.standard_normal(s).astype("float32") for k, s in X_SHAPES.items()}
    record = {f"input_{k}": v for k, v in xs.items()}
    for i, c in enumerate(CASES):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", X_SHAPES[c["x"]], "float32")
            x.stop_gradient = False
            ins = {"X": [x]}
            for slot, value in c["inputs"].items():
                if slot == "SizeTensor":
                    ins[slot] = [paddle.assign(np.array(v, "int32")) for v in value]
                else:
                    dtype = "float32" if slot == "Scale" else "int32"
                    ins[slot] = [paddle.assign(np.array(value, dtype))]
            out = main.global_block().create_var(name="out", dtype="float32")
            attrs = {"data_layout": "NCHW", **c["attrs"]}
            main.global_block().append_op(type=c["op"], inputs=ins, outputs={"Out": [out]},
                                          attrs=dict(attrs))
            forward = main.clone()
            r = paddle.static.data("r", [-1] * len(X_SHAPES[c["x"]]), "float32")
            loss = paddle.sum(out * r)
            (dx,) = paddle.static.gradients([loss], [x])
        exe = paddle.static.Executor(paddle.CPUPlace())
        (y,) = exe.run(forward, feed={"x": xs[c["x"]]}, fetch_list=["out"])
        y, g = exe.run(main, feed={"x": xs[c["x"]], "r": projection(y.shape).astype("float32")},
                       fetch_list=[out, dx])
        record[f"out_{i}"], record[f"grad_{i}"] = y, g
        c["attrs"] = attrs
    record["cases"] = np.array(json.dumps(CASES))
    np.savez_compressed(path, **record)
    print(f"{len(CASES)} cases -> {path}")


if __name__ == "__main__":
    build_cases()
    run(sys.argv[1])
