#!/usr/bin/env python
"""Facts behind pyfluid/io/pir/op_table.py: what Paddle 3's ProgramTranslator (legacy op ->
PIR op) makes of one op of every legacy type, and a check of the table against them.

Usage::

    PYTHON_WITH_PADDLE_3 pir_op_facts.py --record FACTS.json [TYPE ...]
    PYTHON_WITH_PYFLUID  pir_op_facts.py --check FACTS.json

``--record`` builds, with Paddle's legacy API (``FLAGS_enable_pir_api=0``), a program holding
one op of each type (every input slot a distinct variable named after it, every int/float
attribute a distinct value, dispensable inputs left out; a second program gives them too),
translates it with ``paddle.base.core.pir.translate_to_pir``, serializes it as PIR JSON and
keeps, per legacy type: its slots and attributes, the PIR ops made and, for each, the
operands' sources (a feed named after a slot, or a ``full``/``full_int_array`` constant) and
the JSON type of every attribute. Types whose translation fails are recorded with the error.

``--check`` compares the table with the facts: for each legacy type translated into one PIR op
that the table has, the legacy type, operand and result counts, which slot each operand
is, which operands are constants (mutable attributes) and every attribute's name and JSON
type must agree. (Paddle 3.3.1: 153 ops checked, all agree; fetch_v2 is Paddle 3's fetch.)
"""
import argparse
import json
import os
import sys
import tempfile

_AUX = {"1.data", "1.feed", "1.full", "1.full_int_array", "0.combine", "0.split", "p"}
_KINDS = {"bool": "b", "i32": "i32", "i64": "i64", "f32": "f32", "f64": "f64", "str": "s",
          "dtype": "dtype", "place": "place", "intarray": "ia"}
_COMMON = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
           "with_quant_attr"}


def _program(paddle, framework, op_type, with_dispensable):
    from paddle.base.proto import framework_pb2
    at = framework_pb2.AttrType
    proto = framework.OpProtoHolder.instance().get_op_proto(op_type)
    extra = set(paddle.base.core.get_op_extra_attrs(op_type)) if hasattr(
        paddle.base.core, "get_op_extra_attrs") else set()
    program = paddle.static.Program()
    block = program.global_block()
    desc = block.desc.append_op()
    desc.set_type(op_type)
    for kind, slots, setter in (("in", proto.inputs, desc.set_input),
                                ("out", proto.outputs, desc.set_output)):
        for slot in slots:
            if slot.extra or (kind == "in" and slot.dispensable and not with_dispensable):
                continue
            names = [f"{kind}.{slot.name}.{j}" for j in range(2 if slot.duplicable else 1)]
            for name in names:
                block.create_var(name=name, shape=[2, 3], dtype="float32")
            setter(slot.name, names)
    for k, attr in enumerate(proto.attrs):
        if attr.extra or attr.name in extra or attr.name in _COMMON or "dtype" in attr.name:
            continue
        if attr.type in (at.INT, at.LONG):
            (desc._set_int64_attr if attr.type == at.LONG else desc._set_int32_attr)(
                attr.name, 100 + k)
        elif attr.type in (at.INTS, at.LONGS):
            (desc._set_int64s_attr if attr.type == at.LONGS else desc._set_int32s_attr)(
                attr.name, [100 + k, 200 + k])
        elif attr.type == at.FLOAT and attr.name != "epsilon":
            desc._set_float32_attr(attr.name, 0.25 + k)
    desc.check_attrs()
    return program


def _facts(paddle, framework, op_type, with_dispensable):
    program = _program(paddle, framework, op_type, with_dispensable)
    pir_program = paddle.base.core.pir.translate_to_pir(program.desc)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.json")
        paddle.core.serialize_pir_program(pir_program, path, True, False, True)
        ops = json.load(open(path))["program"]["regions"][0]["blocks"][0]["ops"]
    sources = {}
    for op in ops:
        outs = op["O"] if isinstance(op["O"], list) else [op["O"]]
        name = next((a["AT"]["D"] for a in op.get("A", []) if isinstance(a, dict) and
                     a.get("N") == "name"), None)
        for out in outs:
            sources[out["%"]] = ("slot:" + name.split(".")[1]) if op["#"] in ("1.data",
                                                                               "1.feed") \
                else "constant" if op["#"] in ("1.full", "1.full_int_array") \
                else "vector" if op["#"] == "0.combine" else op["#"]
    result = []
    for op in ops:
        if op["#"] in _AUX:
            continue
        result.append({"op": op["#"], "operands": [sources.get(i["%"]) for i in op["I"]],
                       "results": len(op["O"]),
                       "attrs": [[a["N"], _kind(a["AT"])] for a in op["A"]]})
    return result


def _kind(attr):
    local = attr["#"].split(".")[-1].replace("a_", "")
    if local == "array":
        items = attr["D"]
        return (_KINDS.get(items[0]["#"].split(".")[-1].replace("a_", ""), "?") + "s") \
            if items else "s?"
    return _KINDS.get(local, local)


def record(path, types):
    os.environ["FLAGS_enable_pir_api"] = "0"
    import paddle
    from paddle.base import framework
    paddle.enable_static()
    holder = framework.OpProtoHolder.instance()
    types = types or sorted(t for t in holder.op_proto_map if "_grad" not in t)
    facts = {}
    for op_type in types:
        try:
            facts[op_type] = {"pir": _facts(paddle, framework, op_type, False),
                              "pir_all_inputs": _facts(paddle, framework, op_type, True)}
        except Exception as exc:  # noqa: BLE001  (Paddle rejects odd attribute values)
            lines = str(exc).strip().splitlines()
            facts[op_type] = {"error": (lines[-1] if lines else type(exc).__name__)[:300]}
    with open(path, "w") as f:
        json.dump({"paddle": paddle.__version__, "ops": facts}, f, indent=1)
    print(f"{len(facts)} legacy op types, {sum('error' in v for v in facts.values())} not "
          f"translated; facts in {path}")


def check(path):
    from pyfluid.io.pir.op_table import SPECS
    facts = json.load(open(path))["ops"]
    sources = {}              # PIR op -> the legacy types translated into it (grad_add, ...)
    for legacy, entry in facts.items():
        if "error" not in entry and len(entry["pir"]) == 1:
            sources.setdefault(entry["pir"][0]["op"], set()).add(legacy)
    checked, problems = 0, []
    for legacy, entry in sorted(facts.items()):
        if "error" in entry or len(entry["pir"]) != 1:
            continue
        fact = entry["pir"][0]
        spec = SPECS.get("pd_op." + fact["op"].split(".", 1)[1])
        if spec is None or not fact["op"].startswith("1."):
            continue
        if spec.legacy != legacy and spec.legacy in sources[fact["op"]]:
            continue          # another legacy type of the same PIR op: checked under its name
        checked += 1
        issues = []
        if spec.legacy != legacy:
            issues.append(f"legacy type {spec.legacy}")
        if len(spec.operands) != len(fact["operands"]) or len(spec.results) != fact["results"]:
            issues.append(f"{len(spec.operands)} operands/{len(spec.results)} results, Paddle "
                          f"{len(fact['operands'])}/{fact['results']}")
        for i, (operand, source) in enumerate(zip(spec.operands, fact["operands"])):
            if source and source.startswith("slot:") and operand.kind in ("slot", "vector") \
                    and operand.slot != source[5:]:
                issues.append(f"operand {i} is slot {source[5:]}, table {operand.slot}")
            if source == "constant" and operand.kind != "mutable":
                issues.append(f"operand {i} is a constant (mutable attribute)")
        theirs, ours = dict(fact["attrs"]), {a.name: a.kind for a in spec.attrs}
        for name, kind in theirs.items():
            if name not in ours:
                issues.append(f"attribute {name}:{kind} missing")
            elif ours[name] != kind and kind != "s?":
                issues.append(f"attribute {name} is {kind}, table {ours[name]}")
        issues += [f"attribute {name} unknown to Paddle" for name in ours if name not in theirs]
        if issues:
            problems.append(f"{fact['op']} <- {legacy}: " + "; ".join(issues))
    print(f"{checked} PIR ops checked against Paddle's translator; {len(problems)} disagree")
    for line in problems:
        print("  " + line)
    return 1 if problems else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", metavar="FACTS.json")
    parser.add_argument("--check", metavar="FACTS.json")
    parser.add_argument("types", nargs="*")
    args = parser.parse_args(argv)
    if args.record:
        record(args.record, args.types)
        return 0
    if args.check:
        return check(args.check)
    parser.error("give --record or --check")


if __name__ == "__main__":
    sys.exit(main())
