"""Record Paddle 2.6's OpProto (slots, attrs, attr defaults, extra attrs) of every op type
pyfluid registers,
into tests/paddle_protos/op_protos_26.json, which tests/test_op_protos.py compares with
pyfluid's declarations.

Run with pyfluid's Python; it asks a Paddle 2.6 interpreter (never a pyfluid dependency) for
the protos:

    python tools/paddle_references/record_op_protos.py --paddle-python /path/to/paddle26/bin/python

Grad ops and op types Paddle does not know are left out (listed under "unknown")."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "paddle_protos" / "op_protos_26.json"

# Runs inside the Paddle interpreter: reads op types on stdin, prints their protos as JSON.
_DUMP = r'''
import json, sys
from paddle.base import core, framework
holder = framework.OpProtoHolder.instance()
found, unknown = {}, []
COMMON = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
          "with_quant_attr"}   # every op has them (pyfluid's COMMON_ATTRS)

def plain(value):
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value if isinstance(value, (bool, int, float, str)) or value is None else str(value)

for op_type in json.load(sys.stdin):
    try:
        proto = holder.get_op_proto(op_type)
    except ValueError:
        unknown.append(op_type)
        continue
    defaults = core.get_op_attrs_default_value(op_type.encode())
    slots = lambda items: [{"name": s.name, "duplicable": s.duplicable,
                            "dispensable": s.dispensable, "extra": s.extra} for s in items]
    found[op_type] = {
        "inputs": slots(proto.inputs), "outputs": slots(proto.outputs),
        "attrs": [{"name": a.name, "type": int(a.type), "extra": a.extra,
                   **({"default": plain(defaults[a.name])} if a.name in defaults else {})}
                  for a in proto.attrs if a.name not in COMMON],
        # op_compat's extra attrs: outside the proto, yet Paddle's own API sets some of them
        "extra_attrs": {k: plain(v) for k, v in core.get_op_extra_attrs(op_type).items()}}
json.dump({"protos": found, "unknown": sorted(unknown)}, sys.stdout)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paddle-python", required=True, help="a Python with paddle 2.6")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    import pyfluid  # noqa: F401  (registers every op)
    from pyfluid.ops import get_op, registered_ops
    types = [t for t in registered_ops() if get_op(t).forward is None]
    done = subprocess.run([args.paddle_python, "-c", _DUMP], input=json.dumps(types),
                          capture_output=True, text=True, check=True)
    record = json.loads(done.stdout)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    lines = [f" {json.dumps(t)}: {json.dumps(p, sort_keys=True)}"
             for t, p in sorted(record["protos"].items())]        # one op per line
    args.out.write_text('{"paddle": "2.6.2", "unknown": ' + json.dumps(record["unknown"]) +
                        ',\n"protos": {\n' + ",\n".join(lines) + "\n}}\n")
    print(f"{len(record['protos'])} protos written to {args.out}; unknown to Paddle: "
          f"{record['unknown']}")


if __name__ == "__main__":
    main()
