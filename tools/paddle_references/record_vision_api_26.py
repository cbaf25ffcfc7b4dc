"""Record what Paddle 2.6's vision APIs append in static mode, for tests/test_vision_api.py
(and, naming another script of tests/, the convolutions of tests/test_conv_api.py).

    /path/to/paddle26/bin/python tools/paddle_references/record_vision_api_26.py tests/golden/vision_api_paddle26
    /path/to/paddle26/bin/python tools/paddle_references/record_vision_api_26.py tests/golden/conv_api_paddle26 conv_api_script

builds tests/vision_api_script.py's (or the named script's) program with Paddle and writes
``<out>.json`` (per op: type, input/output variable names, attributes without Paddle's extra
ones; per variable: shape) and ``<out>.npz`` (the feeds and the functional outputs, run with
a CPU Executor).
"""
import json
import sys
from pathlib import Path

import importlib

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

COMMON = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
          "with_quant_attr"}


def plain(value):
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float):
        return float(np.float32(value))
    return value if isinstance(value, (bool, int, str)) else int(value)


def main(out, script_name="vision_api_script"):
    script = importlib.import_module(script_name)
    feeds = script.feeds()
    import paddle
    from paddle.base import core
    paddle.enable_static()
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_prog, startup):
        fetches = script.build(paddle)
    block = main_prog.global_block()
    ops = []
    for op in block.ops:
        extra = set(core.get_op_extra_attrs(op.type))
        ops.append({"type": op.type,
                    "inputs": {k: op.input(k) for k in op.input_names if op.input(k)},
                    "outputs": {k: op.output(k) for k in op.output_names if op.output(k)},
                    "attrs": {a: plain(op.attr(a)) for a in op.attr_names
                              if a not in COMMON and a not in extra}})
    shapes = {v.name: list(v.shape) for v in block.vars.values()
              if v.type == core.VarDesc.VarType.LOD_TENSOR}
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    values = exe.run(main_prog, feed=feeds, fetch_list=fetches)
    Path(out + ".json").write_text(json.dumps({"ops": ops, "shapes": shapes,
                                               "fetches": [v.name for v in fetches]},
                                              indent=0, sort_keys=True))
    np.savez_compressed(out + ".npz", **{f"out_{i}": v for i, v in enumerate(values)})
    print(f"{len(ops)} ops, {len(values)} outputs -> {out}.json/.npz")


if __name__ == "__main__":
    main(*sys.argv[1:3])
