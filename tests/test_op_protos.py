"""pyfluid's op declarations against Paddle 2.6's OpProtos (tests/paddle_protos/op_protos_26.json,
recorded by tools/paddle_references/record_op_protos.py): every slot Paddle declares, with its
duplicable/dispensable flags, and every attribute with its type and default, so that programs
Paddle saves load here and programs pyfluid saves load in Paddle."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import pyfluid  # noqa: F401  (registers every op)
from pyfluid.ops import get_op, registered_ops
from pyfluid.ops.types import AttrType

RECORD = json.loads((Path(__file__).resolve().parent / "paddle_protos" /
                     "op_protos_26.json").read_text())
PROTOS = RECORD["protos"]

# Deliberate differences, each with its reason.
KNOWN = {
    # saved by older Paddle programs (gather's proto dropped it): accepted, never emitted
    "gather: attr 'overwrite' is not Paddle's",
    # set by Paddle's fc fuse pass on the fc ops it makes (framework/ir), outside any proto
    "fc: attr 'ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE' is not Paddle's",
    # a required attr in Paddle (its "default" is the empty string); every caller sets it
    "pool2d: attr 'pooling_type' defaults to 'max', Paddle ''",
    # pyfluid's py_func names its callables (portable across processes) where Paddle's
    # forward/backward_callable_id index a per-process list; see ops/py_func.py
    "py_func: attr 'forward_callable_name' is not Paddle's",
    "py_func: attr 'backward_callable_name' is not Paddle's",
}


def _slot_gaps(op_type: str, kind: str, ours, theirs) -> list[str]:
    gaps = []
    declared = {s.name: s for s in ours}
    for slot in theirs:
        mine = declared.pop(slot["name"], None)
        where = f"{op_type}: {kind} slot '{slot['name']}'"
        if mine is None:
            gaps.append(f"{where} is missing")
            continue
        if slot["duplicable"] != mine.duplicable:
            gaps.append(f"{where}: duplicable is {mine.duplicable}, Paddle {slot['duplicable']}")
        if slot["dispensable"] and not mine.dispensable:
            gaps.append(f"{where} must be dispensable (Paddle may leave it empty)")
    gaps += [f"{op_type}: {kind} slot '{n}' is not Paddle's" for n in declared]
    return gaps


def _same_default(ours, theirs, attr_type: AttrType) -> bool:
    if attr_type in (AttrType.FLOAT, AttrType.FLOAT64):
        return abs(float(ours) - float(theirs)) <= 1e-6 * max(1.0, abs(float(theirs)))
    if attr_type in (AttrType.FLOATS, AttrType.FLOAT64S):
        return len(ours) == len(theirs) and all(
            abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))
            for a, b in zip(ours, theirs))
    return list(ours) == list(theirs) if isinstance(theirs, list) else ours == theirs


def _attr_gaps(op_type: str, opdef, theirs) -> list[str]:
    """Paddle's proto attrs: each declared (extra ones may be left undeclared), same type and
    default."""
    gaps = []
    for attr in theirs:
        name, attr_type = attr["name"], AttrType(attr["type"])
        spec = opdef.attrs.get(name) or opdef.extra_attrs.get(name)
        if spec is None:
            if not attr["extra"]:
                gaps.append(f"{op_type}: attr '{name}' ({attr_type.name}) is missing")
            continue
        if spec.type != attr_type:
            gaps.append(f"{op_type}: attr '{name}' is {spec.type.name}, Paddle {attr_type.name}")
        elif "default" in attr and not _same_default(spec.default, attr["default"], attr_type):
            gaps.append(f"{op_type}: attr '{name}' defaults to {spec.default!r}, Paddle "
                        f"{attr['default']!r}")
    return gaps


def _unknown_attr_gaps(op_type: str, opdef, proto) -> list[str]:
    paddle_names = {a["name"] for a in proto["attrs"]} | set(proto["extra_attrs"])
    return [f"{op_type}: attr '{n}' is not Paddle's" for n in (*opdef.attrs, *opdef.extra_attrs)
            if n not in paddle_names]


def proto_gaps(op_type: str) -> list[str]:
    opdef, proto = get_op(op_type), PROTOS[op_type]
    return (_slot_gaps(op_type, "input", opdef.inputs, proto["inputs"])
            + _slot_gaps(op_type, "output", opdef.outputs, proto["outputs"])
            + _attr_gaps(op_type, opdef, proto["attrs"])
            + _unknown_attr_gaps(op_type, opdef, proto))


def test_every_forward_op_is_recorded():
    ours = {t for t in registered_ops() if get_op(t).forward is None}
    missing = sorted(ours - set(PROTOS) - set(RECORD["unknown"]))
    assert not missing, (f"op types without a recorded Paddle proto: {missing}; run "
                         "tools/paddle_references/record_op_protos.py --paddle-python <paddle 2.6>")


@pytest.mark.parametrize("op_type", sorted(PROTOS))
def test_declaration_matches_paddle_proto(op_type):
    if op_type not in registered_ops():
        pytest.skip(f"{op_type} is recorded but no longer registered")
    gaps = [g for g in proto_gaps(op_type) if g not in KNOWN]
    assert not gaps, "\n".join(gaps)
