"""Pack the control-flow recordings of real Paddle 2.6.2 (made by the scripts of
tools/paddle_references/control_flow/, run_all.sh) into the small test data of
tests/paddle_control_flow/:

* ``programs.zip``: ``<case>.pdmodel``, each recorded ProgramDesc with every ``op_callstack``
  emptied (the rest byte for byte as the generated protobuf module writes it, the same as
  Paddle's serializer), and ``values.json``: per forward case its feeds, fetched names and
  Paddle's fetched values (from the recordings' logs);
* ``backward.npz``: per backward case (``<case>/<key>``) the parameter values, feeds, loss
  and gradients Paddle computed (the recordings' npz), and the inputs and outputs of the
  inference models Paddle saved (``c08_<case>/x``, ``/out``; their ``.pdmodel`` and
  ``.pdiparams`` in the zip).

    python tools/paddle_references/pack_control_flow.py RECORDED_DIR tests/paddle_control_flow
"""
from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

import numpy as np

from pyfluid.proto import framework_pb2

FORWARD = ("c01_cond", "c02_while", "c06_executor_semantics")
BACKWARD = ("c03_cond_backward", "c04_while_backward")


def strip_callstacks(data: bytes) -> bytes:
    desc = framework_pb2.ProgramDesc()
    desc.ParseFromString(data)
    for block in desc.blocks:
        for op in block.ops:
            for attr in op.attrs:
                if attr.name == "op_callstack":
                    del attr.strings[:]
    return desc.SerializeToString()


def _value(text: str):
    """``[1.0, 2.0] dtype=float32 shape=[2]`` or a c01-style tuple -> JSON-able value."""
    match = re.match(r"(.*) dtype=(\S+) shape=(\[.*\])$", text)
    if match:
        value, dtype, shape = match.groups()
        return None if value == "None" else {"value": ast.literal_eval(value), "dtype": dtype,
                                               "shape": ast.literal_eval(shape)}
    return None


def forward_cases(folder: Path) -> dict:
    cases, current = {}, None
    for line in (folder / "log.txt").read_text().splitlines():
        header = re.match(r"== (\S+?)(?::|$)", line)
        if header:
            current = header.group(1)
            fetch = re.search(r"fetch (\[.*\])$", line)
            cases[current] = {"fetch": [s.split("[")[0] for s in ast.literal_eval(fetch.group(1))]
                              if fetch else [], "runs": []}
        elif line.startswith("returned:") and current:
            cases[current]["fetch"] = (re.findall(r"Var\(([^,]+),", line)
                                       or re.findall(r"'([^'\[]+)\[", line))
        elif line.startswith("  feed") and current:
            feed, result = re.match(r"  feed (\{.*?\}) -> (.*)$", line).groups()
            if result.startswith("[("):
                values = [{"value": v, "dtype": d, "shape": s}
                          for v, d, s in ast.literal_eval(result)]
            elif result.startswith("EXC"):
                values = {"error": result.split("'")[0][4:].strip()}
            else:
                values = [_value(part) for part in result.split(" | ")]
            cases[current]["runs"].append({"feed": ast.literal_eval(feed), "values": values})
    return cases


def main(recorded: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    values, arrays = {}, {}
    with zipfile.ZipFile(out / "programs.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name in FORWARD + BACKWARD:
            folder, prefix = recorded / name, name.split("_")[0]
            for model in sorted(folder.glob("*.pdmodel")):
                archive.writestr(f"{prefix}_{model.stem}.pdmodel",
                                 strip_callstacks(model.read_bytes()))
            if name in FORWARD:
                for case, entry in forward_cases(folder).items():
                    if (folder / f"{case}.pdmodel").exists():
                        values[f"{prefix}_{case}"] = entry
            for npz in sorted(folder.glob("*.npz")):
                with np.load(npz) as data:
                    arrays.update({f"{prefix}_{npz.stem}/{k}": data[k] for k in data.files})
        for model in sorted((recorded / "c08_inference").glob("*/model.pdmodel")):
            case = model.parent.name
            archive.writestr(f"c08_{case}.pdmodel", strip_callstacks(model.read_bytes()))
            archive.writestr(f"c08_{case}.pdiparams", model.with_suffix(".pdiparams").read_bytes())
            with np.load(model.parent.parent / f"{case}.io.npz") as data:
                arrays.update({f"c08_{case}/{k}": data[k] for k in data.files})
        archive.writestr("values.json", json.dumps(values, indent=1, sort_keys=True) + "\n")
    np.savez_compressed(out / "backward.npz", **arrays)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
